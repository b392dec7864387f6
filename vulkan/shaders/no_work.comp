// The launch floor (vulkan/backends/baselines.cpp's vulkan/baseline/launch): a dispatch that does
// nothing, what any dispatch costs. Specialization constant 0: the workgroup size (one subgroup).
// It takes the push constants of every pipeline's layout and reads none of them.
#version 460

layout(local_size_x_id = 0) in;

void main() {}
