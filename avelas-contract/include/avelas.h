/* avelas.h: the C interface of avelas-rt, the run-time of programs polyc generates (thesis
   Chapter 7). Link with the flags `polyc --print-libs` prints. Every function ends the program
   with "polyc: <reason>" on stderr and exit status 1 when it fails; none returns an error. */
#ifndef AVELAS_H
#define AVELAS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct avelas_tile_bucket avelas_tile_bucket;
typedef struct avelas_thread_bucket avelas_thread_bucket;
typedef struct avelas_buffer_bucket avelas_buffer_bucket;
typedef struct avelas_kernel avelas_kernel;
typedef struct avelas_buffer avelas_buffer;
typedef struct avelas_mix avelas_mix;

/* Configuration from the environment, validated on first use: POLYC_TILE_SIZES (size of SCoP
   `scop`'s tiled dimension k: its own list, else the list for every SCoP; a shorter list repeats
   its last value; default 32), POLYC_PROFILE, POLYC_TRACE (0 or 1), POLYC_DEVICE,
   POLYC_LOCAL_MEM (bytes; see avelas_cl_local_mem), and the tuning file (POLYC_TUNING, else the
   executable's path and ".tuning"). avelas_tuning: the tuning file's entry for SCoP `scop`
   (`key`: its program, scop, id and target fields; `names`: the parameters' names, comma-
   separated, and `values` their `n` values; the device opened completes the key), or -1, also
   when POLYC_TILE_SIZES has a list for the SCoP; with POLYC_PROFILE=1 it prints the whole key.
   avelas_tile_size and avelas_sizes_from ("tuned", "env" or "default") take that entry;
   avelas_tuned_window is the entry's local-memory window, or `window` (the device's or
   POLYC_LOCAL_MEM's, which overrides the entry). */
int avelas_tuning(int scop, const char *key, const char *names, int n, const long *values);
long avelas_tile_size(int scop, int tuned, int k);
const char *avelas_sizes_from(int scop, int tuned);
long avelas_tuned_window(int tuned, long window);
int avelas_profile(void);
int avelas_trace(void);

/* Tile buckets (thesis 7.2): the tiles of one launch, `dims` coordinates, a tag (1: full
   tile, 0: partial) and `outer` host-loop values each, in the order work-groups get them.
   After each wavefront, avelas_tile_bucket_wave(b, batch) holds it back when it has at most
   `batch` tiles (a negative `batch` flushes); then avelas_tile_bucket_part gives the parts to
   launch, -1 when none is left: 1 for a batch one work-group runs in order, 0 otherwise. */
avelas_tile_bucket *avelas_tile_bucket_alloc(int dims, int outer);
void avelas_tile_bucket_push(avelas_tile_bucket *b, int tag, const long *values);
long avelas_tile_bucket_size(const avelas_tile_bucket *b);
void avelas_tile_bucket_wave(avelas_tile_bucket *b, long batch);
int avelas_tile_bucket_part(avelas_tile_bucket *b);
void avelas_tile_bucket_clear(avelas_tile_bucket *b);
void avelas_tile_bucket_free(avelas_tile_bucket *b);

/* Thread buckets (thesis 7.3): the intra-tile points of the box of `extents`, rectangular or
   by intra-tile wavefront, each wavefront padded to a multiple of `padding` with idle
   (negative) entries; work-groups of at most `max_work_group` work-items. */
#define AVELAS_RECTANGULAR 0
#define AVELAS_WAVEFRONT 1
avelas_thread_bucket *avelas_thread_bucket_new(int kind, int dims, const long *extents,
                                               int padding, int max_work_group);
int avelas_thread_bucket_work_group(const avelas_thread_bucket *b);
long avelas_thread_bucket_waves(const avelas_thread_bucket *b);
void avelas_thread_bucket_free(avelas_thread_bucket *b);

/* Mixes: the small wavefronts of several groups of a SCoP (all of them, or those of one host
   loop), launched together by the mix kernel, which runs them in the order the host ended
   them. avelas_mix_group gives the thread bucket of the group at `group` (0 .. groups - 1).
   After each wavefront of such a group, avelas_mix_wave(m, group, tiles, batch) takes it (1)
   when it has at most `batch` tiles, else returns 0: the caller then launches the mix if
   avelas_mix_pending, then the wavefront. */
avelas_mix *avelas_mix_new(int groups);
void avelas_mix_group(avelas_mix *m, int group, const avelas_thread_bucket *threads);
int avelas_mix_wave(avelas_mix *m, int group, avelas_tile_bucket *tiles, long batch);
int avelas_mix_pending(const avelas_mix *m);
void avelas_mix_free(avelas_mix *m);

/* Buffer buckets (thesis 7.4, Algorithm 6): local-memory buffers submitted in rank order
   while they fit in the window; the kernel version to launch and the local memory it needs.
   A buffer the tile writes (`written` nonzero) takes a flag byte per element too; each part
   is rounded up to 8 bytes. */
avelas_buffer_bucket *avelas_buffer_bucket_alloc(long window);
int avelas_buffer_bucket_submit(avelas_buffer_bucket *b, long elem_size, int dims,
                                const long *extents, const long *padding, long work_items,
                                int kernel, int written);
int avelas_buffer_bucket_kernel(const avelas_buffer_bucket *b);
long avelas_buffer_bucket_bytes(const avelas_buffer_bucket *b);
void avelas_buffer_bucket_free(avelas_buffer_bucket *b);

/* OpenCL. The device POLYC_DEVICE names is opened once per process; kernel sources are built
   once (the build log is printed if they do not build). Kernels take the run-time's 7
   arguments first (set by avelas_cl_launch), then their own from index 7. */
void *avelas_cl_open(void);
avelas_kernel *avelas_cl_kernel(void *cl, const char *source, const char *name);
int avelas_cl_max_work_group(const avelas_kernel *k);
int avelas_cl_padding(void *cl);
/* The local-memory window L_w of a work-group: POLYC_LOCAL_MEM, else the device's
   CL_DEVICE_LOCAL_MEM_SIZE. */
long avelas_cl_local_mem(void *cl);
/* A buffer of `bytes` bytes; write and read copy bytes offset..offset+bytes of the host
   object to or from the same bytes of the buffer. */
avelas_buffer *avelas_cl_buffer(void *cl, size_t bytes);
void avelas_cl_write(const avelas_buffer *b, const void *host, size_t offset, size_t bytes);
void avelas_cl_read(const avelas_buffer *b, void *host, size_t offset, size_t bytes);
void avelas_cl_buffer_free(avelas_buffer *b);
void avelas_cl_arg(const avelas_kernel *k, int index, const void *value, size_t size);
void avelas_cl_arg_buffer(const avelas_kernel *k, int index, const avelas_buffer *b);
/* A __local argument of `bytes` bytes. */
void avelas_cl_arg_local(const avelas_kernel *k, int index, long bytes);
/* Launches the tile bucket's current part (avelas_tile_bucket_part): a work-group per tile,
   or one for a batch (which `k`, a kernel's batch twin, runs in order). */
long avelas_cl_launch(const avelas_kernel *k, avelas_tile_bucket *tiles,
                      avelas_thread_bucket *threads);
/* Launches what the mix holds as one work-group of its kernel `k` (of one work-item when the
   kernel is `serial`) and empties it. */
long avelas_cl_launch_mix(const avelas_kernel *k, avelas_mix *m, int serial);
/* The most tiles a wavefront may have to join a batch: POLYC_BATCH_TILES, else 16 on a CPU
   device and 1 on a GPU. */
long avelas_cl_batch_tiles(void *cl);
double avelas_cl_kernel_ms(void *cl);
void avelas_cl_finish(void *cl);

/* CUDA (the driver is loaded when first needed). Buckets are copied to device memory when
   asked for; the generated code passes the addresses to its kernels. */
void avelas_cuda_open(void);
int avelas_cuda_max_threads(void);
/* The shared-memory window L_w of a block: POLYC_LOCAL_MEM, else what a kernel may opt in to
   (cudaFuncAttributeMaxDynamicSharedMemorySize). */
long avelas_cuda_local_mem(void);
const void *avelas_cuda_tile_bucket(avelas_tile_bucket *b, long *stride);
const void *avelas_cuda_thread_bucket(avelas_thread_bucket *b, long *stride,
                                      const void **offsets);
void avelas_cuda_grid(long groups, unsigned *x, unsigned *y);
/* What the mix holds, copied to device memory, and the mix emptied: its address; the runs,
   the concatenated thread buckets and the block's threads (within `max_threads`) through the
   out-pointers. */
const void *avelas_cuda_mix(avelas_mix *m, int serial, int max_threads, long *runs,
                            const void **coords, const void **offsets, unsigned *threads);
/* POLYC_BATCH_TILES, else 1. */
long avelas_cuda_batch_tiles(void);

#ifdef __cplusplus
}
#endif
#endif
