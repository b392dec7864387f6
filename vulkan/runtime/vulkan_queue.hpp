// The Vulkan side of the device-neutral timing layer (api/device_timing.hpp): buffers with device
// addresses, command buffers on the context's compute queue, and a pair of timestamp queries.
//
// Commands are recorded into a command buffer and submitted in order; a barrier before each one
// (shader and transfer writes before, shader and transfer access after) gives the in-order queue
// the layer expects (a CUDA stream's order), except before a dispatch its caller marks independent:
// one that shares no buffer with the commands since the last barrier (a call's own set of slots,
// ticket and result; the input only read), which may then overlap them, as CUDA's programmatic
// launches do. A copy or fill since the last barrier still puts one before it. The start timestamp
// is submitted at once, so that an isolated call includes its submission latency as a CUDA event
// pair does; the calls after it go out every kCommandsPerSubmission commands, so the device starts
// on a batch while the host still records the rest, and the stop timestamp with the last of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "api/device_timing.hpp"
#include "vulkan/runtime/context.hpp"

namespace shootout::vulkan {

// A buffer with its own memory, addressable from shaders; host-visible ones stay mapped.
class Buffer {
public:
    enum class Where { device, host };
    // Throws ResourceExhausted when the memory cannot be had.
    Buffer(Context& context, VkDeviceSize bytes, Where where);
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer get() const { return buffer_; }
    VkDeviceAddress address() const { return address_; }
    VkDeviceSize size() const { return size_; }
    void* mapped() const { return mapped_; }

private:
    VkDevice device_;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceAddress address_ = 0;
    VkDeviceSize size_;
    void* mapped_ = nullptr;
};

struct VulkanMemory final : DeviceQueue::Memory {
    VulkanMemory(Context& context, VkDeviceSize bytes) : buffer(context, bytes, Buffer::Where::device) {}
    Buffer buffer;
};

inline const Buffer& buffer_of(const DeviceQueue::Memory& memory) { return static_cast<const VulkanMemory&>(memory).buffer; }

// Whether a dispatch waits for the commands before it (a barrier), or shares nothing they write.
enum class DispatchOrder { after_previous, independent };

class VulkanQueue final : public DeviceQueue {
public:
    VulkanQueue();
    ~VulkanQueue() override;

    Context& context() const { return context_; }

    std::size_t cache_bytes() const override { return context_.facts().cache_bytes; }
    std::unique_ptr<Memory> allocate(std::size_t bytes) override;
    // Host-visible memory the device copies from; released before the queue.
    std::shared_ptr<void> allocate_staging(std::size_t bytes) override;
    // From staging memory of this queue: a copy command. From any other host memory: through a
    // bounce buffer, waited on.
    void copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) override;
    void copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) override;
    void start_timer() override;
    double stop_timer() override;
    void finish() override;

    // For the calls:
    void copy(const Buffer& to, VkDeviceSize to_offset, const Buffer& from, VkDeviceSize from_offset, VkDeviceSize bytes);
    void fill(const Buffer& buffer, std::uint32_t value);
    void dispatch(VkPipeline pipeline, const void* push_constants, std::uint32_t workgroups, DispatchOrder order = DispatchOrder::after_previous);

private:
    struct Submission {
        VkCommandBuffer commands;
        VkFence fence;
    };
    struct Staging {
        const std::byte* begin;
        const Buffer* buffer;
    };

    // The open command buffer, with a barrier recorded after the commands before it when `ordered`.
    VkCommandBuffer record(bool ordered = true);
    void counted();
    void submit();
    void wait();

    // Commands per submission inside a timed region: a batch of calls starts on the device after the
    // first few, while the host records the rest.
    static constexpr int kCommandsPerSubmission = 32;
    static constexpr VkDeviceSize kBounceBytes = VkDeviceSize{64} << 20;

    Context& context_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkQueryPool timestamps_ = VK_NULL_HANDLE;
    std::vector<Submission> idle_, in_flight_;
    std::optional<Submission> open_;
    int commands_ = 0;
    // A copy or fill was recorded since the last barrier: the next command waits for it.
    bool transfer_since_barrier_ = false;
    std::vector<Staging> staging_;
    std::unique_ptr<Buffer> bounce_;
};

}  // namespace shootout::vulkan
