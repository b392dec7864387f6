// The CUDA device API's name, for the backends that run on it.
#pragma once

#include "api/backend.hpp"

namespace shootout::cuda {

inline constexpr Device kDevice{"cuda"};

}  // namespace shootout::cuda
