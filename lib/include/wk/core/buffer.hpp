#pragma once
// RAII owners of CUDA resources: device memory, host memory (pinned or pageable), pitched device images,
// streams and events. Move-only; destructors never throw.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <new>
#include <string>
#include <utility>

#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/image_view.hpp"

namespace wk {

// Device memory. DeviceBuffer(count) uses cudaMalloc / cudaFree; DeviceBuffer(count, stream) the
// stream-ordered allocator (cudaMallocAsync / cudaFreeAsync on that stream), whose allocating and
// freeing never wait for the whole device, so work on other streams keeps running (freed in
// stream order when destroyed).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) WK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(std::size_t count, cudaStream_t stream) : count_(count), stream_(stream), stream_ordered_(true) {
    if (count) WK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), count * sizeof(T), stream));
  }
  ~DeviceBuffer() {
    if (!ptr_) return;
    if (stream_ordered_) cudaFreeAsync(ptr_, stream_);
    else cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), stream_(o.stream_),
        stream_ordered_(o.stream_ordered_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      this->~DeviceBuffer();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
      stream_ = o.stream_;
      stream_ordered_ = o.stream_ordered_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
  bool stream_ordered_ = false;
};

// Host memory of `count` elements: page-locked (cudaMallocHost: asynchronous copies overlap,
// full PCIe rate) by default, or plain pageable memory (no CUDA call at all: the CPU path).
template <class T>
class HostBuffer {
 public:
  enum class Memory { pinned, pageable };
  HostBuffer() = default;
  explicit HostBuffer(std::size_t count, Memory memory = Memory::pinned) : count_(count), pinned_(memory == Memory::pinned) {
    if (!count) return;
    if (pinned_) {
      WK_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    } else {
      ptr_ = static_cast<T*>(::operator new(count * sizeof(T), std::nothrow));
      if (!ptr_)
        throw Error(ErrorCategory::unsupported, "cannot allocate " + std::to_string((count * sizeof(T)) >> 20) +
                                                    " MiB of host memory");
    }
  }
  ~HostBuffer() { free(); }
  HostBuffer(HostBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), pinned_(o.pinned_) {}
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    if (this != &o) {
      free();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
      pinned_ = o.pinned_;
    }
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  T* get() const { return ptr_; }
  T* data() const { return ptr_; }
  T& operator[](std::size_t i) const { return ptr_[i]; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  bool pinned() const { return pinned_; }

 private:
  void free() noexcept {
    if (!ptr_) return;
    if (pinned_) cudaFreeHost(ptr_);
    else ::operator delete(ptr_);
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  bool pinned_ = true;
};

// Page-locked host memory (the staging buffers of every GPU path).
template <class T>
using PinnedBuffer = HostBuffer<T>;

// A pitched 8-bit device image (cudaMallocPitch: every row starts 512-byte aligned).
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(int width, int height, int channels) { reset(width, height, channels); }
  ~DeviceImage() { if (ptr_) cudaFree(ptr_); }
  DeviceImage(DeviceImage&& o) noexcept { swap(o); }
  DeviceImage& operator=(DeviceImage&& o) noexcept { DeviceImage t(std::move(o)); swap(t); return *this; }
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;

  // Reallocates only when the new image does not fit the current allocation.
  void reset(int width, int height, int channels) {
    const std::size_t row = static_cast<std::size_t>(width) * channels;
    if (!ptr_ || row > pitch_ || height > capacity_rows_) {
      if (ptr_) { cudaFree(ptr_); ptr_ = nullptr; }
      void* p = nullptr;
      std::size_t pitch = 0;
      WK_CUDA_CHECK(cudaMallocPitch(&p, &pitch, row ? row : 1, height ? height : 1));
      ptr_ = static_cast<std::uint8_t*>(p);
      pitch_ = pitch;
      capacity_rows_ = height;
    }
    width_ = width; height_ = height; channels_ = channels;
  }
  ImageView view() const { return {ptr_, width_, height_, pitch_, channels_}; }
  int width() const { return width_; }
  int height() const { return height_; }
  int channels() const { return channels_; }
  std::size_t pitch_bytes() const { return pitch_; }

 private:
  void swap(DeviceImage& o) noexcept {
    std::swap(ptr_, o.ptr_); std::swap(pitch_, o.pitch_); std::swap(capacity_rows_, o.capacity_rows_);
    std::swap(width_, o.width_); std::swap(height_, o.height_); std::swap(channels_, o.channels_);
  }
  std::uint8_t* ptr_ = nullptr;
  std::size_t pitch_ = 0;
  int capacity_rows_ = 0;
  int width_ = 0, height_ = 0, channels_ = 0;
};

class Stream {
 public:
  Stream() { WK_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  // A stream whose kernels the scheduler starts before those of default-priority streams (the
  // greatest priority the current device offers): for a stage every other one waits on, such as
  // the folder job's nvJPEG decoding, whose colour conversion would otherwise queue behind the
  // workers' encode kernels.
  static Stream high_priority() {
    int least = 0, greatest = 0;
    WK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    Stream s(nullptr);
    WK_CUDA_CHECK(cudaStreamCreateWithPriority(&s.s_, cudaStreamNonBlocking, greatest));
    return s;
  }
  ~Stream() { if (s_) cudaStreamDestroy(s_); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept { std::swap(s_, o.s_); return *this; }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void synchronize() const { WK_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  explicit Stream(std::nullptr_t) {}
  cudaStream_t s_ = nullptr;
};

// Waits for all work queued on `stream` without spinning a core: the calling thread sleeps on a
// blocking-sync event (one per thread and device) where cudaStreamSynchronize would spin under
// the default scheduling. For code with many waiting threads, such as the folder job's workers,
// whose spinning takes CPU from the threads that have real work (the nvJPEG decoding thread).
void wait_sleeping(cudaStream_t stream);

class Event {
 public:
  Event() { WK_CUDA_CHECK(cudaEventCreate(&e_)); }
  // cudaEventCreateWithFlags: e.g. cudaEventBlockingSync | cudaEventDisableTiming, an event whose
  // synchronize() sleeps instead of spinning a core.
  explicit Event(unsigned flags) { WK_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
  ~Event() { if (e_) cudaEventDestroy(e_); }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept { std::swap(e_, o.e_); return *this; }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { WK_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void synchronize() const { WK_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float ms_since(const Event& start) const {
    float ms = 0;
    WK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace wk
