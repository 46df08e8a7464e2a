//! The CUDA side: the device the generated program's CUDA runtime calls use, and device memory
//! for the buckets, through `cudarc`'s driver API with the driver loaded when first needed.
//!
//! The generated `.cu` file moves its arrays and launches its kernels with the CUDA runtime
//! API; both APIs share the device's primary context, which is the one made current here.
//! Without a CUDA driver, `cudarc` would panic on its first call: [`CudaRuntime::open`] asks
//! whether the library is present first and reports a clear error.

use cudarc::driver::{result, sys};

use crate::config::DeviceChoice;
use crate::RtError;

/// The device and its limits.
pub struct CudaRuntime {
    pub name: String,
    pub max_threads: usize,
    /// Shared memory one block may use when its kernel opts in (more than the 48 KiB every
    /// kernel gets), in bytes.
    pub shared_per_block: usize,
    /// Most blocks along grid dimensions x and y.
    pub max_grid: (usize, usize),
}

fn err(what: &str, e: impl std::fmt::Debug) -> RtError {
    RtError(format!("CUDA: {what}: {e:?}"))
}

impl CudaRuntime {
    pub fn open(choice: &DeviceChoice) -> Result<CudaRuntime, RtError> {
        // SAFETY: only looks for the library.
        if !unsafe { sys::is_culib_present() } {
            return Err(RtError(
                "no CUDA driver is installed on this machine (libcuda.so was not found); build for OpenCL or C instead".into(),
            ));
        }
        result::init().map_err(|e| err("initialising the driver", e))?;
        let count = result::device::get_count().map_err(|e| err("counting devices", e))?;
        if count < 1 {
            return Err(RtError("CUDA: no CUDA device is present".into()));
        }
        let names: Vec<String> = (0..count)
            .map(|i| {
                result::device::get(i)
                    .and_then(result::device::get_name)
                    .unwrap_or_default()
            })
            .collect();
        let ordinal = match choice {
            DeviceChoice::Default => Some(0),
            DeviceChoice::Ordinal(n) => (*n < count as usize).then_some(*n),
            DeviceChoice::Name(n) => names
                .iter()
                .position(|x| x.to_lowercase().contains(n.as_str()) || n == "gpu"),
            DeviceChoice::Index { .. } => None,
        };
        let Some(ordinal) = ordinal else {
            return Err(RtError(format!(
                "POLYC_DEVICE={choice} names no CUDA device; the devices are: {}",
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| format!("{i}: {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        let dev = result::device::get(ordinal as i32).map_err(|e| err("opening the device", e))?;
        // SAFETY: `dev` came from `device::get`; the context is the primary one, which the CUDA
        // runtime API uses too, and stays retained for the life of the process.
        let attr = |a| {
            unsafe { result::device::get_attribute(dev, a) }
                .unwrap_or(0)
                .max(1) as usize
        };
        unsafe {
            let ctx =
                result::primary_ctx::retain(dev).map_err(|e| err("retaining the context", e))?;
            result::ctx::set_current(ctx).map_err(|e| err("making the context current", e))?;
        }
        use sys::CUdevice_attribute as A;
        Ok(CudaRuntime {
            name: names[ordinal].clone(),
            max_threads: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
            shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                .max(attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)),
            max_grid: (
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "loads a shared library, which Miri cannot")]
    fn without_a_driver_opening_is_a_clear_error() {
        // SAFETY: only looks for the library.
        if unsafe { sys::is_culib_present() } {
            println!("skipped: this machine has a CUDA driver");
            return;
        }
        let e = CudaRuntime::open(&DeviceChoice::Default)
            .err()
            .expect("no driver, no device");
        assert!(e.0.contains("no CUDA driver"), "{e}");
    }
}

/// Device memory that holds a bucket, grown as needed.
#[derive(Default)]
pub struct DeviceArray {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DeviceArray {
    /// Copy `data` to the device (synchronously, ordered after the kernels launched before on
    /// the default stream); its device address.
    pub fn upload<T>(&mut self, data: &[T]) -> Result<u64, RtError> {
        let bytes = std::mem::size_of_val(data).max(16);
        if bytes > self.bytes {
            self.free();
            // SAFETY: a plain allocation in the current context.
            self.ptr = unsafe { result::malloc_sync(bytes.next_power_of_two()) }
                .map_err(|e| err(&format!("allocating {bytes} bytes"), e))?;
            self.bytes = bytes.next_power_of_two();
        }
        if !data.is_empty() {
            // SAFETY: the allocation holds at least `size_of_val(data)` bytes.
            unsafe { result::memcpy_htod_sync(self.ptr, data) }
                .map_err(|e| err("copying a bucket to the device", e))?;
        }
        Ok(self.ptr)
    }

    pub fn free(&mut self) {
        if self.bytes > 0 {
            // SAFETY: allocated by `upload`, freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
            self.bytes = 0;
        }
    }
}

impl Drop for DeviceArray {
    fn drop(&mut self) {
        self.free();
    }
}
