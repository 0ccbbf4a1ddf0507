/* k100lc: C ABI of the resident engine (libfm_engine.so).
 *
 * One engine per process: fm_init opens the device (K100_BACKEND=auto|emu|hsa;
 * auto uses a real gfx926/gfx906 DCU when /dev/kfd exists, else the emulator)
 * and loads a kernel package; every other call works on that engine and may
 * be made from any thread. Kernels are launched by catalog lookup name with
 * argv = the explicit arguments as uint64 values (f32 scalars as their bit
 * pattern in the low 32 bits; the low `size` bytes of each value are used);
 * `grid` counts WORKGROUPS. Launches are asynchronous and run in order.
 *
 * Nothing here aborts on bad input: failures return the codes below and
 * fm_last_error() (per thread) says what went wrong, naming the kernel,
 * argument or buffer. A launch that fails on the device (an emulator fault
 * report, a queue error) is reported by the next fm_sync (or fm_download,
 * fm_copy, fm_memset) of the thread that made it.
 *
 * Return codes: 0 ok; FM_ERR (-1) error, for launches: kernel unknown;
 * FM_ERR_ARGC (-2) wrong explicit-argument count; FM_ERR_KERNARG (-3) kernarg
 * segment larger than FM_MAX_KERNARG; FM_ERR_LAUNCH (-4) launch refused
 * (grid/workgroup sizes, LDS, RT_HSART_NO_SCRATCH, a freed buffer as argument,
 * engine not initialised); FM_ERR_CANCELLED (-5) from fm_sync: launches of
 * this thread were stopped by fm_cancel.
 *
 * Build: cc -I include/k100/runtime app.c -L build -lfm_engine -Wl,-rpath,$PWD/build
 */
#ifndef K100_FM_ENGINE_H
#define K100_FM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FM_OK 0
#define FM_ERR (-1)
#define FM_ERR_ARGC (-2)
#define FM_ERR_KERNARG (-3)
#define FM_ERR_LAUNCH (-4)
#define FM_ERR_CANCELLED (-5)
#define FM_MAX_KERNARG 1024

/* Opens the engine and loads the package `hsaco` (NULL or "": the built
 * k100lc_kernels.hsaco; RT_HSACO overrides). A later call with a package that
 * is already loaded does nothing; with another package it loads that one too
 * (a kernel name defined twice is an error). 0 or -1. */
int fm_init(const char* hsaco);
/* Loads one more package into the table (as fm_init does after the first call). */
int fm_load(const char* hsaco);
/* Loads a code object for fm_launch_dyn only (names may repeat; newest wins).
 * Returns a module index >= 0, or -1. */
int fm_load_module(const void* elf, size_t size, const char* origin);
/* Waits for queued launches, frees every buffer, closes the device. */
int fm_shutdown(void);
/* Text of the calling thread's last error ("" when none). Valid until its next fm_ call. */
const char* fm_last_error(void);
/* "emu" or "hsa" once initialised, else "". */
const char* fm_backend(void);

/* Device memory. fm_alloc(0) allocates one byte; NULL on failure. */
void* fm_alloc(size_t n);
void fm_free(void* p);
/* fm_free with a result: -1 (and a message) for a double free or a non-buffer. */
int fm_release(void* p);
/* Host<->device transfers; the range must lie inside one live buffer. fm_upload
 * does not wait for queued launches; fm_download, fm_copy and fm_memset do. */
int fm_upload(void* dev, const void* host, size_t n);
int fm_download(void* host, const void* dev, size_t n);
int fm_copy(void* dst, const void* src, size_t n);
int fm_memset(void* dev, int v, size_t n);
/* Waits for every queued launch; -1 if one of this thread's launches failed,
 * FM_ERR_CANCELLED if fm_cancel stopped it. */
int fm_sync(void);
/* Waits at most timeout_ms for every queued launch: 0 when none is left
 * (fm_sync then returns at once), 1 when launches are still running, -1 on
 * error. A caller that must stay responsive (Ctrl-C) loops on it. */
int fm_wait(int timeout_ms);
/* Stops every launch queued so far, of every thread: on the emulator the
 * running kernel ends early and the queued ones are dropped, and the next
 * fm_sync of each launching thread returns FM_ERR_CANCELLED. Returns 0 when
 * it is done, 1 on hardware, where a running kernel cannot be stopped
 * (nothing happens), -1 on error. */
int fm_cancel(void);
/* The emulator's instruction budget for later launches, in wave-instructions
 * per dispatch (0 restores the default; K100_EMU_BUDGET sets it at fm_init):
 * a runaway loop ends in a fault instead of running on. 0, 1 on hardware
 * (which has none), -1 on error. */
int fm_set_budget(uint64_t wave_instructions);
/* The emulator's instruction budget (0 on hardware or before fm_init). */
uint64_t fm_budget(void);

/* fm_launch2d(kernel, grid, 1, workgroup, 1, argv, nargs). */
int fm_launch(const char* kernel, uint32_t grid, uint32_t workgroup, const uint64_t* argv,
              int nargs);
int fm_launch2d(const char* kernel, uint32_t gx, uint32_t gy, uint32_t wx, uint32_t wy,
                const uint64_t* argv, int nargs);
int fm_launch3d(const char* kernel, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t wx, uint32_t wy,
                uint32_t wz, const uint64_t* argv, int nargs);
/* By symbol with the caller's layout: `layout` holds `nargs` triples {offset,
 * size, kind} (kind codes: 0 explicit, 1-3 hidden block count x/y/z, 4-6 group
 * size, 7-9 remainder, 10-12 global offset, 13 grid dims). */
int fm_launch_dyn(const char* kernel, uint32_t gx, uint32_t gy, uint32_t wx, uint32_t wy,
                  const uint32_t* layout, uint32_t nargs, uint32_t group_size,
                  uint32_t private_size, uint32_t kernarg_size, const uint64_t* argv, int nargv);
/* 1 if the table knows the lookup name, else 0. */
int fm_has_kernel(const char* kernel);
/* Index of the kernel in the table, or -1. */
int fm_kernel_id(const char* kernel);
/* `nrec` records [kernel_id, grid, workgroup, nargs, argv[nargs]] (uint64 each),
 * 1-D launches; stops at the first invalid record. Returns the number launched. */
int fm_launch_batch(const uint64_t* plan, int nrec);

/* The catalog JSON of every loaded package (or of the package loaded from
 * `hsaco`). Writes at most cap bytes (NUL-terminated) and returns the full
 * length, or -1. */
int fm_catalog_json(const char* hsaco, char* buf, size_t cap);

/* Timing events: a marker in the launch queue. fm_event_record returns an id
 * >= 0 (or -1); fm_event_elapsed waits for both and gives milliseconds. */
int fm_event_record(void);
int fm_event_elapsed(int start, int end, double* ms);
int fm_event_release(int event);

#ifdef __cplusplus
}
#endif

#endif /* K100_FM_ENGINE_H */
