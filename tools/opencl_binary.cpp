// Writes the binary the OpenCL driver built for one of opencl/kernels/*.cl to stdout: PTX on NVIDIA's
// driver (`ptxas -arch=sm_90 -v` then counts registers and spills, `cuobjdump -sass` of its output
// the instructions), the driver's own format elsewhere. The program is built exactly as a backend
// builds it (opencl/runtime/device.hpp's program()), from the kernel's name and the build options,
// which the caller gives (docs/portable-gpus/PERFORMANCE.md, "OpenCL exact", names opencl/exact's).
//   opencl_binary exact '-cl-std=CL1.2 -DLOADS=4 -DELEMENT_F64=0 -DDIGITS=10' > exact-f32.ptx
#include <CL/cl.h>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <vector>

#include "opencl/runtime/device.hpp"

int main(int argc, char** argv) {
    using namespace shootout::opencl;
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s KERNEL 'BUILD OPTIONS'   (KERNEL: a name of opencl/kernels/*.cl, e.g. exact)\n", argv[0]);
        return 2;
    }
    try {
        if (auto why = why_no_device()) {
            std::fprintf(stderr, "no OpenCL device: %s\n", why->c_str());
            return 77;
        }
        const cl_program built = program(argv[1], argv[2]);
        std::size_t size = 0;
        check(clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), "CL_PROGRAM_BINARY_SIZES");
        std::vector<unsigned char> binary(size);
        unsigned char* where = binary.data();
        check(clGetProgramInfo(built, CL_PROGRAM_BINARIES, sizeof where, &where, nullptr), "CL_PROGRAM_BINARIES");
        std::fwrite(binary.data(), 1, binary.size(), stdout);
        std::fprintf(stderr, "%s: %zu bytes for %s\n", argv[1], size, describe().c_str());
        return size != 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
