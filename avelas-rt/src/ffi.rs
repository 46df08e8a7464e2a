//! The C interface generated programs call (`avelas-contract/include/avelas.h`, which documents each
//! function). Handles are boxes the C side owns and frees, except the OpenCL device and its
//! kernels, which live as long as the process (a SCoP executed again finds them built).
//!
//! Generated programs do not handle errors: every failure here prints `polyc: <reason>` on
//! stderr and ends the program with exit status 1.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_long, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use ocl::core::{ArgVal, Kernel, Mem, Program};

use crate::buffer_bucket::BufferBucket;
use crate::config::Config;
use crate::cuda::{CudaRuntime, DeviceArray};
use crate::mix::{self, Mix, ThreadPlace};
use crate::ndrange;
use crate::opencl::ClRuntime;
use crate::thread_bucket::ThreadBucket;
use crate::tile_bucket::TileBucket;
use crate::RtError;

use avelas_contract::kernel_args as arg;
use avelas_contract::tuning::{self, Entry, Tuned, TuningFile};

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("polyc: {e}");
    std::process::exit(1)
}

fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| Config::from_env().unwrap_or_else(|e| fail(e)))
}

/// Run `f`; a panic inside a dependency becomes an error message, not an abort.
fn guard<T>(what: &str, f: impl FnOnce() -> Result<T, RtError>) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => fail(e),
        Err(_) => fail(format!("{what} failed inside the OpenCL or CUDA library")),
    }
}

// ---- configuration ----

/// The tuning file, read on first use: `POLYC_TUNING`, else beside the executable (none there:
/// empty).
fn tuning() -> &'static TuningFile {
    static TUNING: OnceLock<TuningFile> = OnceLock::new();
    TUNING.get_or_init(|| {
        let named = std::env::var_os(tuning::VARIABLE).filter(|v| !v.is_empty());
        let path = match &named {
            Some(p) => std::path::PathBuf::from(p),
            None => match std::env::current_exe() {
                Ok(exe) => {
                    let mut p = exe.into_os_string();
                    p.push(tuning::SUFFIX);
                    p.into()
                }
                Err(_) => return TuningFile::default(),
            },
        };
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if named.is_none() && e.kind() == std::io::ErrorKind::NotFound => {
                return TuningFile::default()
            }
            Err(e) => fail(format!(
                "cannot read the tuning file {}: {e}",
                path.display()
            )),
        };
        TuningFile::parse(&text)
            .unwrap_or_else(|e| fail(format!("tuning file {}: {e}", path.display())))
    })
}

/// The entry of the tuning file for SCoP `scop`, or -1 (avelas.h).
///
/// # Safety
/// `key` and `names` are NUL-terminated; `values` holds `n` values (may be null when `n` is 0).
#[no_mangle]
pub unsafe extern "C" fn avelas_tuning(
    scop: c_int,
    key: *const c_char,
    names: *const c_char,
    n: c_int,
    values: *const c_long,
) -> c_int {
    let key = text(key);
    let values: &[c_long] = match usize::try_from(n) {
        // SAFETY: the caller passes `n` values.
        Ok(n) if n > 0 && !values.is_null() => unsafe { std::slice::from_raw_parts(values, n) },
        _ => &[],
    };
    let params = tuning::params_text(text(names).split(','), values);
    let device = if key.ends_with(" target=cuda") {
        cuda().name.clone()
    } else {
        cl().rt.name.clone()
    };
    let full = format!("{key} device={} params={params}", tuning::word(&device));
    if config().profile {
        eprintln!("polyc-key: {full}");
    }
    if config().sizes_of(scop.max(0) as usize).is_some() {
        return -1;
    }
    let t = tuning();
    t.entries
        .iter()
        .position(|e| e.key == full)
        .map_or(-1, |i| i as c_int)
}

/// The tuning file's entry `tuned`, if any.
fn entry(tuned: c_int) -> Option<&'static Entry> {
    usize::try_from(tuned)
        .ok()
        .and_then(|i| tuning().entries.get(i))
}

#[no_mangle]
pub extern "C" fn avelas_tile_size(scop: c_int, tuned: c_int, k: c_int) -> c_long {
    if let Some(Entry {
        tuned: Tuned::Sizes(s),
        ..
    }) = entry(tuned)
    {
        return s[(k.max(0) as usize).min(s.len() - 1)] as c_long;
    }
    config().tile_size(scop.max(0) as usize, k.max(0) as usize) as c_long
}

/// `"tuned"`, `"env"` or `"default"`, a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn avelas_sizes_from(scop: c_int, tuned: c_int) -> *const c_char {
    if entry(tuned).is_some() {
        return c"tuned".as_ptr();
    }
    match config().sizes_from(scop.max(0) as usize) {
        avelas_contract::config::SIZES_FROM_ENV => c"env".as_ptr(),
        _ => c"default".as_ptr(),
    }
}

/// The local-memory window: `POLYC_LOCAL_MEM`'s (already in `window`), else the entry's, else
/// `window`; never more than the device's local memory.
#[no_mangle]
pub extern "C" fn avelas_tuned_window(tuned: c_int, window: c_long) -> c_long {
    match (config().local_mem, entry(tuned).and_then(|e| e.local_mem)) {
        (None, Some(l)) => l
            .min(LOCAL_LIMIT.load(Ordering::Relaxed))
            .min(c_long::MAX as u64) as c_long,
        _ => window,
    }
}

#[no_mangle]
pub extern "C" fn avelas_profile() -> c_int {
    c_int::from(config().profile)
}

#[no_mangle]
pub extern "C" fn avelas_trace() -> c_int {
    c_int::from(config().trace)
}

/// The local memory a work-group of the device asked last may use at most (what
/// [`avelas_tuned_window`] holds a tuning file's window to; the generated code asks the device's
/// window just before).
static LOCAL_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);

/// The local-memory window `L_w`: `POLYC_LOCAL_MEM`, else what the device offers (`device`),
/// and never more than the device has (`limit`): a larger `POLYC_LOCAL_MEM` made PoCL abort the
/// launch (heat-3d with a 1 MiB window on a device of 512 KiB).
fn window(device: u64, limit: u64) -> c_long {
    LOCAL_LIMIT.store(limit, Ordering::Relaxed);
    config()
        .local_mem
        .unwrap_or(device)
        .min(limit)
        .min(c_long::MAX as u64) as c_long
}

// ---- tile buckets ----

/// A tile bucket and its device copies.
pub struct TileBucketHandle {
    bucket: TileBucket,
    cl: Option<(Mem, usize)>,
    cuda: DeviceArray,
}

/// A bucket of tiles of `dims` coordinates whose entries also carry `outer` host-loop values.
#[no_mangle]
pub extern "C" fn avelas_tile_bucket_alloc(dims: c_int, outer: c_int) -> *mut TileBucketHandle {
    Box::into_raw(Box::new(TileBucketHandle {
        bucket: TileBucket::with_outer(dims.max(0) as usize, outer.max(0) as usize),
        cl: None,
        cuda: DeviceArray::default(),
    }))
}

/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`]; `values` points to the bucket's `dims` coordinates
/// then its `outer` values.
#[no_mangle]
pub unsafe extern "C" fn avelas_tile_bucket_push(
    b: *mut TileBucketHandle,
    tag: c_int,
    values: *const c_long,
) {
    let h = &mut *b;
    let c: Vec<i64> = (0..h.bucket.values()).map(|d| *values.add(d)).collect();
    h.bucket.push(i64::from(tag), &c);
}

/// Entries of the part being launched (of the whole bucket outside a launch).
///
/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_tile_bucket_size(b: *const TileBucketHandle) -> c_long {
    (*b).bucket.len() as c_long
}

/// The end of a wavefront: it joins the batch when it has at most `batch` tiles; a negative
/// `batch` flushes the batch (`tile_bucket`'s module documentation).
///
/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_tile_bucket_wave(b: *mut TileBucketHandle, batch: c_long) {
    (*b).bucket.end_wave(batch);
}

/// Makes the next part to launch the bucket's current one: 1 when one work-group runs its
/// tiles in order, 0 for one work-group per tile; -1 when none is left (the bucket is then
/// empty, or holds a batch).
///
/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_tile_bucket_part(b: *mut TileBucketHandle) -> c_int {
    match (*b).bucket.next_part() {
        Some(p) => c_int::from(p.sequential),
        None => -1,
    }
}

/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_tile_bucket_clear(b: *mut TileBucketHandle) {
    (*b).bucket.clear();
}

/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn avelas_tile_bucket_free(b: *mut TileBucketHandle) {
    if !b.is_null() {
        drop(Box::from_raw(b));
    }
}

// ---- thread buckets ----

/// A thread bucket and its device copies.
pub struct ThreadBucketHandle {
    bucket: ThreadBucket,
    cl: Option<(Mem, Mem)>,
    cuda_coords: DeviceArray,
    cuda_offsets: DeviceArray,
}

/// # Safety
/// `extents` points to `dims` values.
#[no_mangle]
pub unsafe extern "C" fn avelas_thread_bucket_new(
    kind: c_int,
    dims: c_int,
    extents: *const c_long,
    padding: c_int,
    max_work_group: c_int,
) -> *mut ThreadBucketHandle {
    let e: Vec<i64> = (0..dims.max(0) as usize).map(|d| *extents.add(d)).collect();
    let (pad, max) = (padding.max(1) as usize, max_work_group.max(1) as usize);
    let bucket = if kind == 1 {
        ThreadBucket::wavefront(&e, pad, max)
    } else {
        ThreadBucket::rectangular(&e, pad, max)
    }
    .unwrap_or_else(|err| fail(format!("{err} (check POLYC_TILE_SIZES)")));
    Box::into_raw(Box::new(ThreadBucketHandle {
        bucket,
        cl: None,
        cuda_coords: DeviceArray::default(),
        cuda_offsets: DeviceArray::default(),
    }))
}

/// # Safety
/// `b` from [`avelas_thread_bucket_new`].
#[no_mangle]
pub unsafe extern "C" fn avelas_thread_bucket_work_group(b: *const ThreadBucketHandle) -> c_int {
    (*b).bucket.work_group() as c_int
}

/// # Safety
/// `b` from [`avelas_thread_bucket_new`].
#[no_mangle]
pub unsafe extern "C" fn avelas_thread_bucket_waves(b: *const ThreadBucketHandle) -> c_long {
    (*b).bucket.waves() as c_long
}

/// # Safety
/// `b` from [`avelas_thread_bucket_new`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn avelas_thread_bucket_free(b: *mut ThreadBucketHandle) {
    if !b.is_null() {
        drop(Box::from_raw(b));
    }
}

// ---- mixes ----

/// A mix ([`crate::mix`]), its groups' thread buckets and its device copies.
pub struct MixHandle {
    mix: Mix,
    threads: Vec<*const ThreadBucketHandle>,
    /// The concatenated thread buckets, made at the first launch (they do not change).
    concat: Option<(Vec<i32>, Vec<i32>, Vec<ThreadPlace>)>,
    cl: Option<(Mem, usize)>,
    cl_threads: Option<(Mem, Mem)>,
    cuda: DeviceArray,
    cuda_coords: DeviceArray,
    cuda_offsets: DeviceArray,
}

impl MixHandle {
    /// The groups' thread buckets.
    ///
    /// # Safety
    /// Every group's thread bucket was given ([`avelas_mix_group`]) and is live.
    unsafe fn buckets(&self) -> Vec<&ThreadBucket> {
        self.threads
            .iter()
            .map(|t| {
                assert!(!t.is_null(), "a mix's group without a thread bucket");
                &(**t).bucket
            })
            .collect()
    }

    /// The concatenated thread buckets, made once, and the device layout of what is held.
    ///
    /// # Safety
    /// As [`MixHandle::buckets`].
    unsafe fn layout(&mut self) -> Vec<i64> {
        if self.concat.is_none() {
            self.concat = Some(mix::concat(&self.buckets()));
        }
        let (_, _, places) = self.concat.as_ref().expect("made");
        self.mix.layout(places)
    }

    /// The concatenated thread buckets' coordinates and offsets ([`MixHandle::layout`] made
    /// them).
    fn threads(&self) -> (&[i32], &[i32]) {
        let (c, o, _) = self.concat.as_ref().expect("layout made them");
        (c, o)
    }
}

/// A mix of `groups` groups, known by their positions `0..groups`.
#[no_mangle]
pub extern "C" fn avelas_mix_new(groups: c_int) -> *mut MixHandle {
    let n = groups.max(0) as usize;
    Box::into_raw(Box::new(MixHandle {
        mix: Mix::new(n),
        threads: vec![std::ptr::null(); n],
        concat: None,
        cl: None,
        cl_threads: None,
        cuda: DeviceArray::default(),
        cuda_coords: DeviceArray::default(),
        cuda_offsets: DeviceArray::default(),
    }))
}

/// The thread bucket of the mix's group at position `group`.
///
/// # Safety
/// `m` from [`avelas_mix_new`]; `threads` from [`avelas_thread_bucket_new`], live while the
/// mix launches.
#[no_mangle]
pub unsafe extern "C" fn avelas_mix_group(
    m: *mut MixHandle,
    group: c_int,
    threads: *const ThreadBucketHandle,
) {
    let h = &mut *m;
    h.threads[group as usize] = threads;
}

/// The end of a wavefront of the group at position `group`, which `tiles` holds: 1 when it
/// joined the mix (at most `batch` tiles), 0 when the caller launches the mix (if it is
/// pending) and then the wavefront.
///
/// # Safety
/// `m` from [`avelas_mix_new`], `tiles` from [`avelas_tile_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_mix_wave(
    m: *mut MixHandle,
    group: c_int,
    tiles: *mut TileBucketHandle,
    batch: c_long,
) -> c_int {
    c_int::from((*m).mix.offer(group as usize, &mut (*tiles).bucket, batch))
}

/// 1 when wavefronts wait in the mix.
///
/// # Safety
/// `m` from [`avelas_mix_new`].
#[no_mangle]
pub unsafe extern "C" fn avelas_mix_pending(m: *const MixHandle) -> c_int {
    c_int::from((*m).mix.pending())
}

/// # Safety
/// `m` from [`avelas_mix_new`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn avelas_mix_free(m: *mut MixHandle) {
    if !m.is_null() {
        drop(Box::from_raw(m));
    }
}

// ---- buffer buckets ----

#[no_mangle]
pub extern "C" fn avelas_buffer_bucket_alloc(window: c_long) -> *mut BufferBucket {
    Box::into_raw(Box::new(BufferBucket::new(window.max(0) as u64)))
}

/// # Safety
/// `b` from [`avelas_buffer_bucket_alloc`]; `extents` and `padding` point to `dims` values.
#[no_mangle]
pub unsafe extern "C" fn avelas_buffer_bucket_submit(
    b: *mut BufferBucket,
    elem_size: c_long,
    dims: c_int,
    extents: *const c_long,
    padding: *const c_long,
    work_items: c_long,
    kernel: c_int,
    written: c_int,
) -> c_int {
    let n = dims.max(0) as usize;
    let e: Vec<i64> = (0..n).map(|d| *extents.add(d)).collect();
    let p: Vec<i64> = (0..n).map(|d| *padding.add(d)).collect();
    let shape = crate::buffer_bucket::Shape {
        elem_size: elem_size.max(0) as u64,
        extents: &e,
        padding: &p,
        written: written != 0,
    };
    c_int::from((*b).submit(&shape, work_items, kernel.max(0) as usize))
}

/// # Safety
/// `b` from [`avelas_buffer_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_buffer_bucket_bytes(b: *const BufferBucket) -> c_long {
    (*b).bytes().min(c_long::MAX as u64) as c_long
}

/// # Safety
/// `b` from [`avelas_buffer_bucket_alloc`].
#[no_mangle]
pub unsafe extern "C" fn avelas_buffer_bucket_kernel(b: *const BufferBucket) -> c_int {
    (*b).kernel() as c_int
}

/// # Safety
/// `b` from [`avelas_buffer_bucket_alloc`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn avelas_buffer_bucket_free(b: *mut BufferBucket) {
    if !b.is_null() {
        drop(Box::from_raw(b));
    }
}

// ---- OpenCL ----

/// The process's OpenCL device and what was built on it.
pub struct ClState {
    rt: ClRuntime,
    programs: HashMap<String, Program>,
    kernels: HashMap<(String, String), Box<KernelHandle>>,
}

/// A kernel of a built program.
pub struct KernelHandle {
    kernel: Kernel,
    max_work_group: usize,
}

/// A device buffer.
pub struct BufferHandle {
    mem: Mem,
}

fn cl() -> MutexGuard<'static, ClState> {
    static CL: OnceLock<Mutex<ClState>> = OnceLock::new();
    CL.get_or_init(|| {
        let c = config();
        let rt = guard("opening the OpenCL device", || {
            ClRuntime::open(&c.device, c.profile)
        });
        if c.trace {
            eprintln!("polyc-device: {}", rt.name);
        }
        Mutex::new(ClState {
            rt,
            programs: HashMap::new(),
            kernels: HashMap::new(),
        })
    })
    .lock()
    .unwrap_or_else(|e| e.into_inner())
}

fn text(s: *const c_char) -> String {
    // SAFETY: generated code passes NUL-terminated literals.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

/// Opens the device (once per process). The handle only marks that the device is open.
#[no_mangle]
pub extern "C" fn avelas_cl_open() -> *mut c_void {
    let st = cl();
    &st.rt as *const ClRuntime as *mut c_void
}

/// # Safety
/// `source` and `name` are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_kernel(
    _cl: *mut c_void,
    source: *const c_char,
    name: *const c_char,
) -> *mut KernelHandle {
    let (source, name) = (text(source), text(name));
    let mut st = cl();
    let key = (source.clone(), name.clone());
    if let Some(k) = st.kernels.get_mut(&key) {
        return k.as_mut() as *mut KernelHandle;
    }
    if !st.programs.contains_key(&source) {
        let p = guard("building the kernels", || {
            st.rt.build(
                &source,
                "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt",
            )
        });
        st.programs.insert(source.clone(), p);
    }
    let program = &st.programs[&source];
    let kernel = guard("creating a kernel", || st.rt.kernel(program, &name));
    let max_work_group = st.rt.kernel_work_group(&kernel);
    let handle = st.kernels.entry(key).or_insert(Box::new(KernelHandle {
        kernel,
        max_work_group,
    }));
    handle.as_mut() as *mut KernelHandle
}

/// # Safety
/// `k` from [`avelas_cl_kernel`].
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_max_work_group(k: *const KernelHandle) -> c_int {
    (*k).max_work_group.min(c_int::MAX as usize) as c_int
}

/// The local-memory window of the OpenCL device's work-groups.
#[no_mangle]
pub extern "C" fn avelas_cl_local_mem(_cl: *mut c_void) -> c_long {
    let rt = &cl().rt;
    window(rt.local_mem, rt.local_mem_limit)
}

#[no_mangle]
pub extern "C" fn avelas_cl_padding(_cl: *mut c_void) -> c_int {
    cl().rt.padding() as c_int
}

/// A device buffer of `bytes` bytes, contents undefined until written.
#[no_mangle]
pub extern "C" fn avelas_cl_buffer(_cl: *mut c_void, bytes: usize) -> *mut BufferHandle {
    let st = cl();
    let mem = guard("allocating a buffer", || st.rt.buffer(bytes, None));
    Box::into_raw(Box::new(BufferHandle { mem }))
}

/// Copy bytes `offset..offset + bytes` of `host` to the same bytes of `b`.
///
/// # Safety
/// `b` from [`avelas_cl_buffer`]; `host + offset` points to `bytes` readable bytes (or
/// `bytes` is 0).
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_write(
    b: *const BufferHandle,
    host: *const c_void,
    offset: usize,
    bytes: usize,
) {
    if host.is_null() || bytes == 0 {
        return;
    }
    let data = std::slice::from_raw_parts((host as *const u8).add(offset), bytes);
    let st = cl();
    guard("writing a buffer", || st.rt.write(&(*b).mem, offset, data));
}

/// Copy bytes `offset..offset + bytes` of `b` to the same bytes of `host`.
///
/// # Safety
/// `b` from [`avelas_cl_buffer`]; `host + offset` points to `bytes` writable bytes (or
/// `bytes` is 0).
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_read(
    b: *const BufferHandle,
    host: *mut c_void,
    offset: usize,
    bytes: usize,
) {
    if host.is_null() || bytes == 0 {
        return;
    }
    let data = std::slice::from_raw_parts_mut((host as *mut u8).add(offset), bytes);
    let st = cl();
    guard("reading a buffer", || st.rt.read(&(*b).mem, offset, data));
}

/// # Safety
/// `b` from [`avelas_cl_buffer`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_buffer_free(b: *mut BufferHandle) {
    if !b.is_null() {
        drop(Box::from_raw(b));
    }
}

/// # Safety
/// `k` from [`avelas_cl_kernel`]; `value` points to `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_arg(
    k: *const KernelHandle,
    index: c_int,
    value: *const c_void,
    size: usize,
) {
    let st = cl();
    let v = ArgVal::from_raw(size, value, false);
    guard("setting a kernel argument", || {
        st.rt.arg(&(*k).kernel, index as u32, v)
    });
}

/// A `__local` argument of `bytes` bytes (a kernel version's local-memory buffers).
///
/// # Safety
/// `k` from [`avelas_cl_kernel`].
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_arg_local(k: *const KernelHandle, index: c_int, bytes: c_long) {
    let st = cl();
    let len = bytes.max(1) as usize;
    guard("setting a kernel argument", || {
        st.rt
            .arg(&(*k).kernel, index as u32, ArgVal::local::<u8>(&len))
    });
}

/// # Safety
/// `k` from [`avelas_cl_kernel`], `b` from [`avelas_cl_buffer`].
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_arg_buffer(
    k: *const KernelHandle,
    index: c_int,
    b: *const BufferHandle,
) {
    let st = cl();
    guard("setting a kernel argument", || {
        st.rt
            .arg(&(*k).kernel, index as u32, ArgVal::mem(&(*b).mem))
    });
}

/// Launch `k` over the tile bucket's current part with the thread bucket's work-groups (thesis
/// Fig. 6.11, INVOKE_KERNEL): a work-group per tile, or one for all of a sequential part (`k`
/// is then a kernel's batch twin, which runs the bucket's tiles in order).
/// Returns the number of launches (0 for an empty bucket).
///
/// # Safety
/// Handles from their constructors.
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_launch(
    k: *const KernelHandle,
    tiles: *mut TileBucketHandle,
    threads: *mut ThreadBucketHandle,
) -> c_long {
    let (k, tiles, threads) = (&*k, &mut *tiles, &mut *threads);
    let n = tiles.bucket.len();
    if n == 0 {
        return 0;
    }
    let sequential = tiles.bucket.current().is_some_and(|p| p.sequential);
    let mut st = cl();
    guard("launching a kernel", || {
        let flat = tiles.bucket.flattened();
        let bytes: Vec<u8> = flat.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let fits = matches!(&tiles.cl, Some((_, cap)) if *cap >= bytes.len());
        if !fits {
            tiles.cl = Some((
                st.rt.buffer(bytes.len().next_power_of_two(), None)?,
                bytes.len().next_power_of_two(),
            ));
        }
        let tmem = &tiles.cl.as_ref().expect("allocated").0;
        st.rt.write(tmem, 0, &bytes)?;
        if threads.cl.is_none() {
            let b = &threads.bucket;
            let c: Vec<u8> = b.coords().iter().flat_map(|v| v.to_ne_bytes()).collect();
            let o: Vec<u8> = b.offsets().iter().flat_map(|v| v.to_ne_bytes()).collect();
            threads.cl = Some((
                st.rt.buffer(c.len(), Some(&c))?,
                st.rt.buffer(o.len(), Some(&o))?,
            ));
        }
        let (cmem, omem) = threads.cl.as_ref().expect("uploaded");
        let kernel = &k.kernel;
        let longs = [
            n as i64,
            tiles.bucket.stride() as i64,
            threads.bucket.stride() as i64,
            threads.bucket.waves() as i64,
        ];
        let index = |i: usize| i as u32;
        st.rt.arg(kernel, index(arg::TILES), ArgVal::mem(tmem))?;
        st.rt
            .arg(kernel, index(arg::TILE_COUNT), ArgVal::scalar(&longs[0]))?;
        st.rt
            .arg(kernel, index(arg::TILE_STRIDE), ArgVal::scalar(&longs[1]))?;
        st.rt
            .arg(kernel, index(arg::THREAD_COORDS), ArgVal::mem(cmem))?;
        st.rt
            .arg(kernel, index(arg::THREAD_OFFSETS), ArgVal::mem(omem))?;
        st.rt
            .arg(kernel, index(arg::THREAD_STRIDE), ArgVal::scalar(&longs[2]))?;
        st.rt
            .arg(kernel, index(arg::WAVES), ArgVal::scalar(&longs[3]))?;
        let local = threads.bucket.work_group().min(k.max_work_group).max(1);
        let limit = (i32::MAX as usize) / local;
        let work_groups = if sequential { 1 } else { n };
        let groups = ndrange::factor(work_groups, limit, limit)
            .ok_or_else(|| RtError(format!("{n} work-groups exceed the device's limits")))?;
        st.rt.launch(kernel, groups, local)
    });
    1
}

/// Launches what mix `m` holds as one work-group of its kernel `k` (one work-item where the
/// kernel is `serial`, printed without barriers), and empties it; 0 when it holds nothing.
///
/// # Safety
/// `k` from [`avelas_cl_kernel`], `m` from [`avelas_mix_new`] with every group's thread
/// bucket given.
#[no_mangle]
pub unsafe extern "C" fn avelas_cl_launch_mix(
    k: *const KernelHandle,
    m: *mut MixHandle,
    serial: c_int,
) -> c_long {
    let (k, h) = (&*k, &mut *m);
    if !h.mix.pending() {
        return 0;
    }
    let runs = h.mix.runs() as i64;
    let local = mix::work_group(&h.buckets(), serial != 0, k.max_work_group);
    let mut st = cl();
    guard("launching a mix", || {
        let layout = h.layout();
        let bytes: Vec<u8> = layout.iter().flat_map(|v| v.to_ne_bytes()).collect();
        if !matches!(&h.cl, Some((_, cap)) if *cap >= bytes.len()) {
            let cap = bytes.len().next_power_of_two();
            h.cl = Some((st.rt.buffer(cap, None)?, cap));
        }
        if h.cl_threads.is_none() {
            let (coords, offsets) = h.threads();
            let c: Vec<u8> = coords.iter().flat_map(|v| v.to_ne_bytes()).collect();
            let o: Vec<u8> = offsets.iter().flat_map(|v| v.to_ne_bytes()).collect();
            h.cl_threads = Some((
                st.rt.buffer(c.len(), Some(&c))?,
                st.rt.buffer(o.len(), Some(&o))?,
            ));
        }
        let mem = &h.cl.as_ref().expect("allocated").0;
        st.rt.write(mem, 0, &bytes)?;
        let (cmem, omem) = h.cl_threads.as_ref().expect("uploaded");
        let zero = 0i64;
        let index = |i: usize| i as u32;
        let kernel = &k.kernel;
        st.rt.arg(kernel, index(arg::TILES), ArgVal::mem(mem))?;
        st.rt
            .arg(kernel, index(arg::TILE_COUNT), ArgVal::scalar(&runs))?;
        st.rt
            .arg(kernel, index(arg::TILE_STRIDE), ArgVal::scalar(&zero))?;
        st.rt
            .arg(kernel, index(arg::THREAD_COORDS), ArgVal::mem(cmem))?;
        st.rt
            .arg(kernel, index(arg::THREAD_OFFSETS), ArgVal::mem(omem))?;
        st.rt
            .arg(kernel, index(arg::THREAD_STRIDE), ArgVal::scalar(&zero))?;
        st.rt
            .arg(kernel, index(arg::WAVES), ArgVal::scalar(&zero))?;
        st.rt.launch(kernel, (1, 1), local)
    });
    h.mix.clear();
    1
}

/// The most tiles a wavefront may have to join a batch on the OpenCL device:
/// `POLYC_BATCH_TILES`, else [`CPU_BATCH_TILES`] on a CPU device and 1 on a GPU (a wavefront of
/// one tile runs on one work-group anyway, so batching it costs no parallelism).
#[no_mangle]
pub extern "C" fn avelas_cl_batch_tiles(_cl: *mut c_void) -> c_long {
    let gpu = cl().rt.is_gpu;
    batch_tiles(if gpu { 1 } else { CPU_BATCH_TILES })
}

/// The same for the CUDA device: `POLYC_BATCH_TILES`, else 1.
#[no_mangle]
pub extern "C" fn avelas_cuda_batch_tiles() -> c_long {
    batch_tiles(1)
}

/// A CPU device's default batch limit. A launch costs a PoCL device about as much as a few
/// dozen tiles of work (docs/results/launch-batches-*): a wavefront of fewer tiles than that
/// runs sooner on one core after the tiles before it than in a launch of its own.
pub const CPU_BATCH_TILES: u64 = 16;

fn batch_tiles(default: u64) -> c_long {
    config()
        .batch_tiles
        .unwrap_or(default)
        .min(c_long::MAX as u64) as c_long
}

/// Kernel time so far, in milliseconds (with `POLYC_PROFILE=1`).
#[no_mangle]
pub extern "C" fn avelas_cl_kernel_ms(_cl: *mut c_void) -> f64 {
    cl().rt.kernel_ns as f64 / 1e6
}

#[no_mangle]
pub extern "C" fn avelas_cl_finish(_cl: *mut c_void) {
    let st = cl();
    guard("finishing", || st.rt.finish());
}

// ---- CUDA ----

fn cuda() -> &'static CudaRuntime {
    static CUDA: OnceLock<CudaRuntime> = OnceLock::new();
    CUDA.get_or_init(|| {
        let rt = guard("opening the CUDA device", || {
            CudaRuntime::open(&config().device)
        });
        if config().trace {
            eprintln!("polyc-device: {}", rt.name);
        }
        rt
    })
}

/// Open the CUDA device (once per process): before the program's first CUDA runtime call.
#[no_mangle]
pub extern "C" fn avelas_cuda_open() {
    cuda();
}

#[no_mangle]
pub extern "C" fn avelas_cuda_max_threads() -> c_int {
    cuda().max_threads.min(c_int::MAX as usize) as c_int
}

/// The local-memory (shared memory) window of the CUDA device's blocks.
#[no_mangle]
pub extern "C" fn avelas_cuda_local_mem() -> c_long {
    let shared = cuda().shared_per_block as u64;
    window(shared, shared)
}

/// The tile bucket in device memory (consolidated now); its row stride in `*stride`.
///
/// # Safety
/// `b` from [`avelas_tile_bucket_alloc`]; `stride` writable.
#[no_mangle]
pub unsafe extern "C" fn avelas_cuda_tile_bucket(
    b: *mut TileBucketHandle,
    stride: *mut c_long,
) -> *const c_void {
    cuda();
    let h = &mut *b;
    *stride = h.bucket.stride() as c_long;
    let flat = h.bucket.flattened();
    guard("copying the tile bucket", || h.cuda.upload(&flat)) as *const c_void
}

/// The thread bucket's coordinates in device memory; their row stride in `*stride`, the
/// wavefront offsets' device address in `*offsets`.
///
/// # Safety
/// `b` from [`avelas_thread_bucket_new`]; `stride` and `offsets` writable.
#[no_mangle]
pub unsafe extern "C" fn avelas_cuda_thread_bucket(
    b: *mut ThreadBucketHandle,
    stride: *mut c_long,
    offsets: *mut *const c_void,
) -> *const c_void {
    cuda();
    let h = &mut *b;
    *stride = h.bucket.stride() as c_long;
    let (coords, offs) = (h.bucket.coords().to_vec(), h.bucket.offsets().to_vec());
    *offsets = guard("copying the thread bucket", || h.cuda_offsets.upload(&offs)) as *const c_void;
    guard("copying the thread bucket", || {
        h.cuda_coords.upload(&coords)
    }) as *const c_void
}

/// What mix `m` holds, in device memory, and the mix emptied: the layout's address; its
/// runs in `*runs`, the concatenated thread buckets' addresses in `*coords` and `*offsets`,
/// and the block's threads in `*threads` (one where the kernel is `serial`, else the widest
/// group's within `max_threads`, the kernel's limit).
///
/// # Safety
/// `m` from [`avelas_mix_new`] with every group's thread bucket given; the out-pointers
/// writable.
#[no_mangle]
pub unsafe extern "C" fn avelas_cuda_mix(
    m: *mut MixHandle,
    serial: c_int,
    max_threads: c_int,
    runs: *mut c_long,
    coords: *mut *const c_void,
    offsets: *mut *const c_void,
    threads: *mut c_uint,
) -> *const c_void {
    cuda();
    let h = &mut *m;
    *runs = h.mix.runs() as c_long;
    *threads = mix::work_group(&h.buckets(), serial != 0, max_threads.max(1) as usize) as c_uint;
    let layout = h.layout();
    let (c, o) = h.threads();
    let (c, o) = (c.to_vec(), o.to_vec());
    *coords = guard("copying a mix's thread buckets", || {
        h.cuda_coords.upload(&c)
    }) as *const c_void;
    *offsets = guard("copying a mix's thread buckets", || {
        h.cuda_offsets.upload(&o)
    }) as *const c_void;
    let at = guard("copying a mix", || h.cuda.upload(&layout)) as *const c_void;
    h.mix.clear();
    at
}

/// The grid of a launch of `groups` blocks (thesis §6.3.1).
///
/// # Safety
/// `x` and `y` writable.
#[no_mangle]
pub unsafe extern "C" fn avelas_cuda_grid(groups: c_long, x: *mut c_uint, y: *mut c_uint) {
    let (mx, my) = cuda().max_grid;
    let (a, b) = ndrange::factor(groups.max(1) as usize, mx, my)
        .unwrap_or_else(|| fail(format!("{groups} blocks exceed the device's grid")));
    *x = a as c_uint;
    *y = b as c_uint;
}

/// The C interface as generated programs call it: raw pointers in and out, every handle freed.
/// These are the tests Miri runs (`scripts/miri.sh`): it checks each dereference, the boxes'
/// lifetimes and that nothing leaks. The OpenCL and CUDA entries call drivers, which Miri cannot.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_buckets_through_the_c_interface() {
        let b = avelas_tile_bucket_alloc(2, 1);
        let coords: [c_long; 3] = [4, -2, 7];
        // SAFETY: `b` is live until freed; `coords` holds the bucket's two coordinates and
        // one outer value.
        unsafe {
            // The first wavefronts launch as they come.
            for _ in 0..crate::tile_bucket::WAVES_BEFORE_BATCHES {
                avelas_tile_bucket_push(b, 1, coords.as_ptr());
                avelas_tile_bucket_wave(b, 2);
                assert_eq!(avelas_tile_bucket_part(b), 0);
                assert_eq!(avelas_tile_bucket_part(b), -1);
            }
            // Then two wavefronts of one tile with batches of at most two: held back.
            for tag in [1, 0] {
                avelas_tile_bucket_push(b, tag, coords.as_ptr());
                avelas_tile_bucket_wave(b, 2);
                assert_eq!(avelas_tile_bucket_part(b), -1);
            }
            assert_eq!(avelas_tile_bucket_size(b), 2);
            // The flush: one sequential part of both, then nothing.
            avelas_tile_bucket_wave(b, -1);
            assert_eq!(avelas_tile_bucket_part(b), 1);
            assert_eq!(avelas_tile_bucket_size(b), 2);
            assert_eq!(avelas_tile_bucket_part(b), -1);
            assert_eq!(avelas_tile_bucket_size(b), 0);
            avelas_tile_bucket_push(b, 0, coords.as_ptr());
            avelas_tile_bucket_clear(b);
            assert_eq!(avelas_tile_bucket_size(b), 0);
            avelas_tile_bucket_free(b);
            avelas_tile_bucket_free(std::ptr::null_mut());
        }
    }

    #[test]
    fn mixes_through_the_c_interface() {
        let tiles = [
            avelas_tile_bucket_alloc(1, 1),
            avelas_tile_bucket_alloc(0, 1),
        ];
        let extents: [c_long; 1] = [4];
        // SAFETY: every handle is live until freed; `values` holds each bucket's coordinates
        // and its one outer value; the thread buckets outlive the mix.
        unsafe {
            let threads = [
                avelas_thread_bucket_new(0, 1, extents.as_ptr(), 1, 64),
                avelas_thread_bucket_new(0, 1, extents.as_ptr(), 1, 64),
            ];
            let m = avelas_mix_new(2);
            for (p, t) in threads.iter().enumerate() {
                avelas_mix_group(m, p as c_int, *t);
            }
            let values: [c_long; 2] = [3, 9];
            // The first wavefronts stay with their groups: the caller launches them.
            for w in 0..crate::tile_bucket::WAVES_BEFORE_BATCHES as usize {
                let b = tiles[w % 2];
                avelas_tile_bucket_push(b, 1, values.as_ptr());
                assert_eq!(avelas_mix_wave(m, (w % 2) as c_int, b, 16), 0);
                avelas_tile_bucket_clear(b);
            }
            // Then both groups' wavefronts join the mix, which empties their buckets.
            for (p, b) in tiles.iter().enumerate() {
                avelas_tile_bucket_push(*b, 1, values[p..].as_ptr());
                assert_eq!(avelas_mix_wave(m, p as c_int, *b, 16), 1);
                assert_eq!(avelas_tile_bucket_size(*b), 0);
            }
            assert_eq!(avelas_mix_pending(m), 1);
            let h = &mut *m;
            let layout = h.layout();
            let (coords, offsets) = h.threads();
            assert_eq!((coords.len(), offsets.len()), (8, 4));
            // Two groups' heads (the second's thread bucket after the first's), two runs.
            assert_eq!(&layout[..8], &[0, 0, 4, 1, 4, 2, 4, 1]);
            assert_eq!(layout[8], 0);
            assert_eq!(layout[12], 1);
            avelas_mix_free(m);
            avelas_mix_free(std::ptr::null_mut());
            for (t, b) in threads.into_iter().zip(tiles) {
                avelas_thread_bucket_free(t);
                avelas_tile_bucket_free(b);
            }
        }
    }

    #[test]
    fn thread_buckets_through_the_c_interface() {
        let extents: [c_long; 2] = [16, 32];
        // SAFETY: `extents` holds two values; the handles are live until freed.
        unsafe {
            let r = avelas_thread_bucket_new(0, 2, extents.as_ptr(), 32, 1024);
            assert_eq!(avelas_thread_bucket_work_group(r), 16 * 32);
            let w = avelas_thread_bucket_new(1, 2, extents.as_ptr(), 32, 1024);
            assert!(avelas_thread_bucket_waves(w) >= 1);
            avelas_thread_bucket_free(r);
            avelas_thread_bucket_free(w);
            avelas_thread_bucket_free(std::ptr::null_mut());
        }
    }

    #[test]
    fn buffer_buckets_through_the_c_interface() {
        let b = avelas_buffer_bucket_alloc(16 * 1024);
        let (extents, padding): ([c_long; 2], [c_long; 2]) = ([16, 30], [1, 32]);
        // SAFETY: `extents` and `padding` hold two values; `b` is live until freed.
        unsafe {
            assert_eq!(
                avelas_buffer_bucket_submit(b, 8, 2, extents.as_ptr(), padding.as_ptr(), 256, 1, 0),
                1
            );
            assert_eq!(avelas_buffer_bucket_kernel(b), 1);
            assert_eq!(avelas_buffer_bucket_bytes(b), 16 * 32 * 8);
            avelas_buffer_bucket_free(b);
            avelas_buffer_bucket_free(std::ptr::null_mut());
        }
        // A negative window is an empty one.
        let b = avelas_buffer_bucket_alloc(-5);
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                avelas_buffer_bucket_submit(b, 8, 2, extents.as_ptr(), padding.as_ptr(), 256, 1, 0),
                0
            );
            avelas_buffer_bucket_free(b);
        }
    }
}
