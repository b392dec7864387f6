#include "vulkan/runtime/vulkan_queue.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "vulkan/runtime/loader.hpp"

namespace shootout::vulkan {
namespace {

// How long a submission may take before the device is taken to have hung.
constexpr std::uint64_t kFenceTimeoutNs = std::uint64_t{120} * 1000 * 1000 * 1000;

// A memory type `bits` allows with `required`, preferring one that also has `preferred`.
std::uint32_t memory_type(const VkPhysicalDeviceMemoryProperties& memory, std::uint32_t bits, VkMemoryPropertyFlags required,
                          VkMemoryPropertyFlags preferred) {
    std::optional<std::uint32_t> found;
    for (std::uint32_t type = 0; type < memory.memoryTypeCount; ++type) {
        const VkMemoryPropertyFlags flags = memory.memoryTypes[type].propertyFlags;
        if (!(bits & (1u << type)) || (flags & required) != required) continue;
        if ((flags & preferred) == preferred) return type;
        if (!found) found = type;
    }
    if (!found) throw std::runtime_error("no Vulkan memory type with the properties a buffer needs");
    return *found;
}

void full_barrier(VkCommandBuffer commands, VkPipelineStageFlags to_stage, VkAccessFlags to_access) {
    const VkMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                                  .dstAccessMask = to_access};
    vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, to_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// Orders one command after the ones before it: the shader and transfer writes of every earlier
// command (earlier submissions included) visible to the next. Narrower than full_barrier: on an
// H100 a barrier over all commands and memory cost 3-8 us a call more (2^10: 6.4 against 3.3 us).
void command_barrier(VkCommandBuffer commands) {
    const VkMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                                   VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vk.vkCmdPipelineBarrier(commands, stages, stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace

Buffer::Buffer(Context& context, VkDeviceSize bytes, Where where) : device_(context.device()), size_(std::max<VkDeviceSize>(bytes, 4)) {
    if (size_ > context.facts().max_buffer_size)
        throw ResourceExhausted("a Vulkan buffer of " + std::to_string(size_) + " bytes is above the device's maxBufferSize");
    const VkBufferCreateInfo create{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                    .size = size_,
                                    .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                    .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    SHOOTOUT_VK_CHECK(vk.vkCreateBuffer(device_, &create, nullptr, &buffer_));
    try {
        VkMemoryRequirements requirements{};
        vk.vkGetBufferMemoryRequirements(device_, buffer_, &requirements);
        const bool host = where == Where::host;
        const VkMemoryAllocateFlagsInfo flags{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                              .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
        const VkMemoryAllocateInfo allocate{
            .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            .pNext = &flags,
            .allocationSize = requirements.size,
            .memoryTypeIndex = memory_type(context.facts().memory, requirements.memoryTypeBits,
                                           host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                           host ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0)};
        SHOOTOUT_VK_CHECK(vk.vkAllocateMemory(device_, &allocate, nullptr, &memory_));
        SHOOTOUT_VK_CHECK(vk.vkBindBufferMemory(device_, buffer_, memory_, 0));
        if (host) SHOOTOUT_VK_CHECK(vk.vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
        const VkBufferDeviceAddressInfo address{.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = buffer_};
        address_ = vk.vkGetBufferDeviceAddress(device_, &address);
    } catch (...) {
        if (memory_) vk.vkFreeMemory(device_, memory_, nullptr);
        vk.vkDestroyBuffer(device_, buffer_, nullptr);
        throw;
    }
}

Buffer::~Buffer() {
    vk.vkDestroyBuffer(device_, buffer_, nullptr);
    vk.vkFreeMemory(device_, memory_, nullptr);  // unmapped with it
}

VulkanQueue::VulkanQueue() : context_(vulkan::context()) {
    const VkCommandPoolCreateInfo pool{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                       .queueFamilyIndex = context_.queue_family()};
    SHOOTOUT_VK_CHECK(vk.vkCreateCommandPool(context_.device(), &pool, nullptr, &pool_));
    const VkQueryPoolCreateInfo queries{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                        .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                        .queryCount = 2};
    const VkResult made = vk.vkCreateQueryPool(context_.device(), &queries, nullptr, &timestamps_);
    if (made != VK_SUCCESS) vk.vkDestroyCommandPool(context_.device(), pool_, nullptr);
    SHOOTOUT_VK_CHECK(made);
}

VulkanQueue::~VulkanQueue() {
    try {
        finish();
    } catch (...) {  // a lost device: nothing is waited for, everything is released
    }
    for (const Submission& s : idle_) vk.vkDestroyFence(context_.device(), s.fence, nullptr);
    for (const Submission& s : in_flight_) vk.vkDestroyFence(context_.device(), s.fence, nullptr);
    if (open_) vk.vkDestroyFence(context_.device(), open_->fence, nullptr);
    bounce_.reset();
    vk.vkDestroyQueryPool(context_.device(), timestamps_, nullptr);
    vk.vkDestroyCommandPool(context_.device(), pool_, nullptr);  // frees its command buffers
}

std::unique_ptr<DeviceQueue::Memory> VulkanQueue::allocate(std::size_t bytes) { return std::make_unique<VulkanMemory>(context_, bytes); }

std::shared_ptr<void> VulkanQueue::allocate_staging(std::size_t bytes) {
    auto buffer = std::make_shared<Buffer>(context_, bytes, Buffer::Where::host);
    staging_.push_back({static_cast<const std::byte*>(buffer->mapped()), buffer.get()});
    return {buffer->mapped(), [this, buffer](void* p) {
                std::erase_if(staging_, [p](const Staging& s) { return s.begin == p; });
            }};
}

void VulkanQueue::copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) {
    const auto* source = static_cast<const std::byte*>(from);
    for (const Staging& s : staging_)
        if (source >= s.begin && source + bytes <= s.begin + s.buffer->size())
            return copy(buffer_of(to), offset, *s.buffer, static_cast<VkDeviceSize>(source - s.begin), bytes);
    if (!bounce_) bounce_ = std::make_unique<Buffer>(context_, kBounceBytes, Buffer::Where::host);
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t chunk = std::min<std::size_t>(bytes - done, kBounceBytes);
        finish();  // the bounce buffer's last chunk has been copied
        std::memcpy(bounce_->mapped(), source + done, chunk);
        copy(buffer_of(to), offset + done, *bounce_, 0, chunk);
        done += chunk;
    }
    finish();
}

void VulkanQueue::copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) {
    copy(buffer_of(to), to_offset, buffer_of(from), from_offset, bytes);
}

void VulkanQueue::copy(const Buffer& to, VkDeviceSize to_offset, const Buffer& from, VkDeviceSize from_offset, VkDeviceSize bytes) {
    if (bytes == 0) return;
    const VkBufferCopy region{.srcOffset = from_offset, .dstOffset = to_offset, .size = bytes};
    vk.vkCmdCopyBuffer(record(), from.get(), to.get(), 1, &region);
    transfer_since_barrier_ = true;
    counted();
}

void VulkanQueue::fill(const Buffer& buffer, std::uint32_t value) {
    vk.vkCmdFillBuffer(record(), buffer.get(), 0, VK_WHOLE_SIZE, value);
    transfer_since_barrier_ = true;
    counted();
}

void VulkanQueue::dispatch(VkPipeline pipeline, const void* push_constants, std::uint32_t workgroups, DispatchOrder order) {
    const VkCommandBuffer commands = record(order == DispatchOrder::after_previous || transfer_since_barrier_);
    vk.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vk.vkCmdPushConstants(commands, context_.pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes, push_constants);
    vk.vkCmdDispatch(commands, workgroups, 1, 1);
    counted();
}

// The start's timestamp opens a submission of its own; the stop's waits behind a barrier (below).
void VulkanQueue::start_timer() {
    const VkCommandBuffer commands = record(false);
    vk.vkCmdResetQueryPool(commands, timestamps_, 0, 2);
    vk.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps_, 0);
    submit();
}

double VulkanQueue::stop_timer() {
    // Behind a barrier: NVIDIA's driver latches a bottom-of-pipe timestamp before dispatches recorded
    // without one have finished (an H100 timed overlapping 1 GiB sums at 5.4 TB/s, above its HBM).
    vk.vkCmdWriteTimestamp(record(true), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps_, 1);
    finish();
    std::uint64_t ticks[2] = {};
    SHOOTOUT_VK_CHECK(vk.vkGetQueryPoolResults(context_.device(), timestamps_, 0, 2, sizeof ticks, ticks, sizeof ticks[0],
                                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    // Valid bits only: the counter wraps at 2^timestampValidBits.
    const std::uint64_t mask = context_.facts().timestamp_mask;
    const std::uint64_t elapsed = ((ticks[1] & mask) - (ticks[0] & mask)) & mask;
    return static_cast<double>(elapsed) * context_.facts().timestamp_period_ns * 1e-9;
}

void VulkanQueue::finish() {
    if (open_) submit();
    wait();
}

VkCommandBuffer VulkanQueue::record(bool ordered) {
    if (!open_) {
        Submission s{};
        if (!idle_.empty()) {
            s = idle_.back();
            idle_.pop_back();
        } else {
            const VkCommandBufferAllocateInfo allocate{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                       .commandPool = pool_,
                                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                       .commandBufferCount = 1};
            SHOOTOUT_VK_CHECK(vk.vkAllocateCommandBuffers(context_.device(), &allocate, &s.commands));
            const VkFenceCreateInfo fence{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
            SHOOTOUT_VK_CHECK(vk.vkCreateFence(context_.device(), &fence, nullptr, &s.fence));
        }
        const VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                             .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        SHOOTOUT_VK_CHECK(vk.vkBeginCommandBuffer(s.commands, &begin));
        open_ = s;
        commands_ = 0;
    }
    if (ordered) {
        command_barrier(open_->commands);
        transfer_since_barrier_ = false;
    }
    return open_->commands;
}

void VulkanQueue::counted() {
    if (++commands_ >= kCommandsPerSubmission) submit();
}

void VulkanQueue::submit() {
    // What the commands wrote is visible to the host once the fence has signalled.
    full_barrier(open_->commands, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    SHOOTOUT_VK_CHECK(vk.vkEndCommandBuffer(open_->commands));
    const VkSubmitInfo submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &open_->commands};
    const Submission s = *open_;
    open_.reset();
    const VkResult submitted = vk.vkQueueSubmit(context_.queue(), 1, &submit, s.fence);
    if (submitted != VK_SUCCESS) {
        vk.vkResetCommandBuffer(s.commands, 0);
        idle_.push_back(s);
        SHOOTOUT_VK_CHECK(submitted);
    }
    in_flight_.push_back(s);
}

void VulkanQueue::wait() {
    while (!in_flight_.empty()) {
        const Submission s = in_flight_.front();
        const VkResult waited = vk.vkWaitForFences(context_.device(), 1, &s.fence, VK_TRUE, kFenceTimeoutNs);
        if (waited == VK_TIMEOUT) throw std::runtime_error("the Vulkan device did not finish a submission within 120 s");
        SHOOTOUT_VK_CHECK(waited);
        in_flight_.erase(in_flight_.begin());
        SHOOTOUT_VK_CHECK(vk.vkResetFences(context_.device(), 1, &s.fence));
        SHOOTOUT_VK_CHECK(vk.vkResetCommandBuffer(s.commands, 0));
        idle_.push_back(s);
    }
}

}  // namespace shootout::vulkan
