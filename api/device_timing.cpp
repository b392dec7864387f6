#include "api/device_timing.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "api/measurement_rules.hpp"

namespace shootout {

std::size_t copy_stride(std::size_t bytes) {
    return std::max<std::size_t>((bytes + kDeviceCopyAlignment - 1) / kDeviceCopyAlignment, 1) * kDeviceCopyAlignment;
}

RotatingInput::RotatingInput(DeviceQueue& queue, Elements input, bool rotate, std::size_t min_count)
    : stride_(copy_stride(input.size_bytes())) {
    const std::size_t span_bytes = rules::kL2RotationFactor * queue.cache_bytes();
    count_ = rotate && stride_ < span_bytes ? (span_bytes + stride_ - 1) / stride_ : 1;
    count_ = std::max(count_, min_count);
    memory_ = queue.allocate(stride_ * count_);
    if (input.empty()) return;
    queue.copy_in(*memory_, 0, input.data(), input.size_bytes());
    // Doubling: each copy duplicates every copy made so far.
    for (std::size_t made = 1; made < count_;) {
        const std::size_t more = std::min(made, count_ - made);
        queue.copy(*memory_, made * stride_, *memory_, 0, more * stride_);
        made += more;
    }
    queue.finish();
}

std::size_t RotatingInput::next() {
    const std::size_t offset = next_ * stride_;
    next_ = (next_ + 1) % count_;
    return offset;
}

std::size_t RotatingInput::previous(std::size_t back) const { return (next_ + count_ - back % count_) % count_ * stride_; }

TimedDeviceReduction::TimedDeviceReduction(std::string name, const DeviceBackendParts& parts, Elements input,
                                           const PrepareOptions& options)
    : name_(std::move(name)),
      queue_(parts.make_queue()),
      bytes_(input.size_bytes()),
      transfer_(options.include_transfer),
      copies_(*queue_, input, !transfer_, parts.writes_input ? static_cast<std::size_t>(std::max(options.batch, 1)) : 1) {
    if (parts.writes_input && !transfer_ && bytes_ > 0) {
        pristine_ = queue_->allocate(bytes_);
        queue_->copy(*pristine_, 0, copies_.memory(), 0, bytes_);
    }
    if (transfer_) {
        staging_ = queue_->allocate_staging(std::max<std::size_t>(bytes_, 1));
        if (bytes_ > 0) std::memcpy(staging_.get(), input.data(), bytes_);
    }
    call_ = parts.make_call(*queue_, input);
    queue_->finish();
}

// The call is released before the copies and the queue it was made on.
TimedDeviceReduction::~TimedDeviceReduction() { call_.reset(); }

std::optional<double> TimedDeviceReduction::run() {
    return naming_failures(name_, [&] {
        const std::size_t in = copies_.next();
        queue_->start_timer();
        if (transfer_ && bytes_ > 0) queue_->copy_in(copies_.memory(), in, staging_.get(), bytes_);
        call_->enqueue(copies_.memory(), in, transfer_);
        const double seconds = queue_->stop_timer();
        restore(1);
        return seconds;
    });
}

double TimedDeviceReduction::run_batch(int calls) {
    if (transfer_) throw std::logic_error("a batch of timed transfers was asked for");
    return naming_failures(name_, [&] {
        queue_->start_timer();
        for (int call = 0; call < calls; ++call) call_->enqueue(copies_.memory(), copies_.next(), false);
        const double seconds = queue_->stop_timer();
        restore(static_cast<std::size_t>(calls));
        return seconds;
    });
}

// The energy window of measurement_rules.hpp: batches from one step of the counter to the first step
// after rules::kEnergyWindowSeconds of device time.
Energy TimedDeviceReduction::energy_per_call(int calls) {
    return naming_failures(name_, [&]() -> Energy {
        Energy last = queue_->energy_counter();
        if (!last.joules) return last;
        std::optional<double> start;  // the counter at the window's first step
        double window = 0, since_step = 0;
        std::int64_t made = 0;
        for (;;) {
            double seconds = 0;
            std::int64_t batch_calls = 0;
            for (; seconds < rules::kEnergyPollSeconds; batch_calls += calls) seconds += run_batch(calls);
            const Energy now = queue_->energy_counter();
            if (!now.joules) return now;
            if (start) window += seconds, made += batch_calls;
            since_step += seconds;
            if (*now.joules == *last.joules) {
                if (since_step > rules::kEnergyGiveUpSeconds)
                    return {.missing = "the energy counter did not move in " + std::to_string(static_cast<int>(since_step)) + " s of device time"};
                continue;
            }
            if (!start) start = now.joules;
            else if (window >= rules::kEnergyWindowSeconds) return {.joules = (*now.joules - *start) / static_cast<double>(made)};
            last = now;
            since_step = 0;
        }
    });
}

double TimedDeviceReduction::result() {
    return naming_failures(name_, [&] {
        queue_->finish();
        return call_->result();
    });
}

// In-place calls overwrote the copies the last `calls` calls read: put the input back, queued after
// the stop timestamp and before the next start, so never timed.
void TimedDeviceReduction::restore(std::size_t calls) {
    if (!pristine_) return;
    for (std::size_t back = 1; back <= calls; ++back) queue_->copy(copies_.memory(), copies_.previous(back), *pristine_, 0, bytes_);
}

}  // namespace shootout
