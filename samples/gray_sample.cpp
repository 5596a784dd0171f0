// Sample: convert one image to gray through the warpkit library on the GPU (or the CPU when no
// GPU is usable) and check it against OpenCV's cv::cvtColor. Prints PASS or FAIL.
//
//   wk-sample-gray [IMAGE]     (without IMAGE a synthetic 1921x1081 picture is used)
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>

#include "wk/core/backend.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/image/gray.hpp"

int main(int argc, char** argv) {
  try {
    cv::Mat src;
    if (argc > 1) {
      src = cv::imread(argv[1], cv::IMREAD_COLOR);
      if (src.empty()) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
      }
    } else {
      src.create(1081, 1921, CV_8UC3);
      cv::randu(src, cv::Scalar::all(0), cv::Scalar::all(256));
    }
    cv::Mat expected;
    cv::cvtColor(src, expected, cv::COLOR_BGR2GRAY);

    const wk::BackendSelection sel = wk::select_backend(wk::DeviceChoice::automatic);
    cv::Mat got(src.rows, src.cols, CV_8UC1);
    if (sel.backend == wk::Backend::gpu) {
      wk::Stream stream;
      wk::DeviceImage d_src(src.cols, src.rows, 3), d_dst(src.cols, src.rows, 1);
      WK_CUDA_CHECK(cudaMemcpy2DAsync(d_src.view().data, d_src.pitch_bytes(), src.data, src.step[0], src.cols * 3,
                                      src.rows, cudaMemcpyHostToDevice, stream));
      wk::image::gray(d_src.view(), d_dst.view(), wk::image::ChannelOrder::bgr, stream);
      WK_CUDA_CHECK(cudaMemcpy2DAsync(got.data, got.step[0], d_dst.view().data, d_dst.pitch_bytes(), got.cols, got.rows,
                                      cudaMemcpyDeviceToHost, stream));
      stream.synchronize();
    } else {
      std::printf("%s\n", sel.notice.c_str());
      wk::image::gray_cpu({src.data, src.cols, src.rows, src.step[0], 3}, {got.data, got.cols, got.rows, got.step[0], 1},
                          wk::image::ChannelOrder::bgr);
    }
    const double diff = cv::norm(expected, got, cv::NORM_INF);
    std::printf("gray %dx%d on the %s: max difference to OpenCV %.0f\n%s\n", src.cols, src.rows,
                wk::to_string(sel.backend), diff, diff == 0 ? "PASS" : "FAIL");
    return diff == 0 ? 0 : 1;
  } catch (const wk::Error& e) {
    std::fprintf(stderr, "error: %s\nFAIL\n", e.what());
    return 1;
  }
}
