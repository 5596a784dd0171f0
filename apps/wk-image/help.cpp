// wk-image --help: the text after the options (examples, file semantics, speed, reports).
#include "help.hpp"

#include "wk/image/pipeline.hpp"
#include "wk/io/metadata.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace {

constexpr const char* kFooter = R"(Examples:
  wk-image thumbnail:1920x1080 -o thumbs/ photos/   fit every photo inside 1920x1080 (never enlarged)
  wk-image resize:50% -o half/ photos/        half the size a side (area averaging)
  wk-image resize:640x480:fill:lanczos -o out/ photos/   cover 640x480, cut from the centre
  wk-image thumbnail:800,sharpen --format webp --quality 80 -o web/ photos/
  wk-image gray -o gray/ photos/              convert every image below photos/ to gray
  wk-image gray,gauss:5,equalize -o out/ photos/   a chain: intermediates stay on the GPU
  wk-image hist --plot -o out/ a.png          out/a.png plus out/a.hist.csv and out/a.hist.png
  wk-image rotate:90,crop:center:1080x1080 -o out/ photos/   quarter turn clockwise, then a centred square
  wk-image 'conv:[0 -1 0; -1 5 -1; 0 -1 0]' --border replicate -o out/ photos/
  wk-image gray -o out/ a.jpg b.png --device cpu
  wk-image gray -o out/ photos/ --format png --report run.json
  wk-image gray -o out/ photos/ --resume run.json     finish an interrupted run
  wk-image thumbnail:256 --format jpg -o - photo.png > thumb.jpg   one image to standard output
  curl -s URL | wk-image gray --format png -o - - | display   standard input to standard output

Files:
  Folders are searched recursively for images by extension (jpg jpeg jpe png bmp dib tif tiff
  webp pbm pgm ppm pnm pxm pfm sr ras jp2, any case); a file named directly is read whatever
  its extension. The format is taken from the content and must be one of those (its size is
  checked against --max-pixels before decoding); Radiance HDR, DICOM, OpenEXR and the rest of
  OpenCV's decoders are refused (damaged HDR files leak descriptors, GDCM can abort), and GIF
  and HEIF/AVIF are named as unsupported formats. Outputs mirror each input's path below its
  root in OUTDIR, with the same name and format (or --format's: one this build writes, checked
  before any work).
  Decoding is cv::imread(IMREAD_COLOR) except that 1-channel images stay 1-channel: 8-bit,
  EXIF orientation applied (GPU JPEG decode: see below). Nothing is converted silently: a
  pipeline of geometry and resampling ops only (flip, rotate, transpose, crop, resize,
  thumbnail) keeps 16-bit and floating-point inputs and alpha channels (run through OpenCV on
  the host; the output must be a format that holds them: PNG or TIFF, WebP for 8-bit alpha,
  else the file is refused); any other pipeline refuses such an input unless --depth 8 or
  --alpha drop converts it as cv::imread converts it. thumbnail decodes a JPEG at 1/2, 1/4 or 1/8 a side (libjpeg's DCT
  scaling) when that is still at least the thumbnail's size, as vipsthumbnail does.
  Lossless outputs (PNG, BMP, PNM, TIFF, WebP without --quality) are bit-identical to OpenCV's
  result (a gray .ppm holds the gray value in all three channels, since PPM is colour-only);
  JPEG outputs use quality 95 and WebP outputs are lossless unless --quality says otherwise;
  PNG outputs use zlib level 3 unless --png-level. A pipeline that only reads the image
  (hist) writes its side outputs only, no copy of the image.
  Metadata (libexiv2; this build: %EXIV2%): the ICC profile, EXIF, IPTC, XMP and comments of
  each input go to its JPEG, PNG, WebP or TIFF output, EXIF orientation reset to 1 (the pixels
  are already turned), sizes updated, the EXIF thumbnail dropped; --strip removes them all.
  An existing output is replaced atomically (an unnamed temporary file in the same folder,
  fsync'ed, then renamed over it: never half-written, nothing left after a crash) unless
  --skip-existing; an output that is a symbolic link has its target replaced. Before any work,
  every output (and the --report file) is checked against every input: a job that would
  overwrite an input (a.jpg -> a.png beside a.png, -o the input folder) is a usage error.
  A folder that cannot be read is an error of its own (named, exit status 1); the walk goes on.
  Links to folders are not followed. The same file named twice is converted once.
  - (the input) is standard input and -o - standard output, for one image: - must be the only
  input, -o - takes exactly one input file (or -) and needs --format (no file name chooses the
  encoder); standard input is read whole, then decoded from memory (JPEG 2000, Sun raster and
  PFM, which OpenCV decodes only from files, are refused). Pipelines that write side files
  (hist), --skip-existing and --resume do not go with -o -.
  Bad inputs (truncated JPEG without end-of-image marker, empty file, non-image, unreadable or
  special file, more pixels than --max-pixels) are reported with the file name and reason;
  every other file is still processed and nothing half-written is left behind.

Speed:
  Worker threads (--threads, one per core by default) read, decode, encode and write in
  parallel; each owns pinned staging buffers, and the workers of a GPU share two CUDA streams,
  so uploads, kernels and downloads of different images overlap, spread over --gpus. A GPU
  failure (out of memory) moves that worker to the CPU path; no file is lost.
  --device auto (the default) never waits for the GPU: the workers start on the CPU at once
  while the GPU (CUDA context, nvJPEG, a first decode: ~1 s) starts on a background thread,
  then hand over to it; the first files' outputs are those of --device cpu, and the report
  says per file which device did it. A job the CPU alone ends within about a second (estimated
  from the input sizes) does not start the GPU at all. --device gpu puts every file on the GPU
  and waits for it; --device cpu never touches it.

GPU JPEG decode and encode (nvJPEG; this build: %NVJPEG%):
  On the GPU backend of a build with nvJPEG (auto, the default, or --jpeg-decoder nvjpeg), the
  workers hand JPEG inputs to one decoding thread per GPU, which decodes them in batches of up
  to --jpeg-batch (the hardware JPEG decoder where the GPU has one, as A100/H100) straight into
  GPU memory: no upload. JPEG outputs (auto, or --jpeg-encoder nvjpeg) are encoded on the GPU
  with OpenCV's settings (baseline, standard Huffman tables, 4:2:0 chroma, --quality), and only
  the compressed bytes come back. Pixels and bytes then differ from OpenCV's by rounding
  (another IDCT and colour conversion): --jpeg-decoder opencv --jpeg-encoder opencv gives
  outputs identical to --device cpu. JPEGs that nvJPEG would decode differently or not at all
  (progressive ones on the hardware decoder, CMYK/YCCK, 12-bit, EXIF-rotated, RGB-coded) and
  any file nvJPEG rejects are decoded by OpenCV, one by one, so a bad file fails alone. The
  report's "decoder" and "encoder" say which each file got.

Report (--report FILE): JSON {"backend": the one that ran (cpu when the GPU took no file),
  "files": [{"path", "output", "status": ok|failed|skipped,
  "error", "width", "height", "device", "decoder": opencv|nvjpeg-hw|nvjpeg, "encoder":
  opencv|nvjpeg, "finished_s" (seconds from the start), "ms": {"read",
  "decode", "process", "encode", "write"}, "earlier_run": true (a record kept from the report
  resumed)}], "input_errors": [...], "totals": {"ok" (all done, "done_earlier" of them by an
  earlier run), "failed", "skipped", ...}, "gpu":
  {"ready_s", "files_cpu", "files_gpu", "decode_busy_s", "decode_starved_s", ...} (auto and
  gpu: when the GPU took files, how many each device did, the nvJPEG decoder's time)}, written
  atomically at the end, also after Ctrl-C. For nvJPEG files "decode" is an equal share of
  their batch's decode time. A file name that is not UTF-8 has U+FFFD for its bad bytes in
  "path" and its exact bytes in "path_hex". --resume FILE skips the inputs that FILE lists as
  done by a job with the same settings (pipeline, --border, --plot, --format, --quality,
  --png-level, --strip, --depth, --alpha) into
  the same output, when that output still exists and the input has the size and modification
  time the report recorded; the others are done again (a notice says why), and the new report
  goes to FILE unless --report says otherwise. It holds every file's latest record: those of the
  files skipped as FILE had them (their timings are that run's), the others this run's.

Many machines (MPI): mpirun -np N wk-image ... (or srun) runs one job over N ranks: rank 0 lists
  the inputs and deals chunks of them on demand, every rank converts its chunks on its node's
  GPUs (split over the node's ranks) or CPU and writes their outputs (a shared file system), and
  rank 0 shows the one progress line and writes the one --report. docs/scale-out.md.

Interrupting (Ctrl-C, SIGTERM, SIGHUP: a closed terminal) stops cleanly: files in flight finish,
no partial files remain, the report says what was done. A second signal ends at once (no
temporary file left, no report).

Memory: images in flight (compressed, decoded, results) stay within --memory over all workers;
a worker waits for room, and an image larger than the whole budget runs alone.
Output: standard output carries data only (the image of -o -); everything said -- notices, the
progress bar (on a terminal), the summary, errors -- goes to standard error. -q silences all of it
but errors, and the decoders' own warnings (libpng, libjpeg); -v adds a line per file (size,
device, decoder and encoder, time per stage) and the time per stage over the job. Names with
control characters are shown escaped.

Environment: wk-image sets CUDA_DEVICE_MAX_CONNECTIONS=12 (work queues per GPU context; with
  the driver's default 8 the workers' streams and the JPEG decoder wait on each other; each
  queue more costs ~13 ms of start-up) unless it is set already: set it yourself to keep
  another value (1-32; e.g. under MPS).

Exit status: 0 all inputs succeeded (or were skipped), 1 some failed, 2 usage error (before any
file is touched), 130 interrupted.)";

}  // namespace

std::string wk_image_help_footer() {
  std::string footer = kFooter;
  footer.replace(footer.find("%NVJPEG%"), 8, wk::pipeline::nvjpeg_in_build() ? "built in" : "not built in");
  footer.replace(footer.find("%EXIV2%"), 7, wk::io::metadata_supported() ? "built in" : "not built in: nothing carried");
  return footer + "\n\nOperations:\n" + wk::image::operations_help();
}
