// NVIDIA's management library (NVML), opened at run time from the driver's libnvidia-ml.so.1, so
// that a build runs where it is missing: its rows' energy and clocks are then left empty, and the run says why.
#pragma once

#include <string>

#include "api/backend.hpp"

namespace shootout::cuda {

// The total energy counter of the GPU at `pci_bus_id` (as cudaDeviceGetPCIBusId writes it), in
// joules since the driver was loaded (nvmlDeviceGetTotalEnergyConsumption, in millijoules; Volta
// and later). The library's path: SHOOTOUT_NVML_LIBRARY, else libnvidia-ml.so.1.
Energy total_energy(const std::string& pci_bus_id);

// The SM and memory clocks of that GPU now, and the SM clock's maximum (nvmlDeviceGetClockInfo,
// nvmlDeviceGetMaxClockInfo), in MHz.
DeviceClocks clocks(const std::string& pci_bus_id);

}  // namespace shootout::cuda
