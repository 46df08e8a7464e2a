//! OpenCL through the `ocl` crate: device choice, program build (with its log on failure),
//! buffers, kernel arguments, launches, event timing.
//!
//! Without an OpenCL driver, `ocl` would wait about ten seconds for platforms to appear and then
//! panic; [`ClRuntime::open`] asks the loader once and reports a clear error instead.

use std::ffi::CString;

use ocl::core::{
    self, ArgVal, CommandQueue, CommandQueueProperties, Context, DeviceId, DeviceInfo,
    DeviceInfoResult, DeviceLocalMemType, DeviceType, Event, Kernel, KernelWorkGroupInfo,
    KernelWorkGroupInfoResult, Mem, MemFlags, PlatformId, PlatformInfo, ProfilingInfo, Program,
    ProgramBuildInfo,
};

use crate::config::DeviceChoice;
use crate::RtError;

/// One OpenCL device, its context and in-order queue.
pub struct ClRuntime {
    device: DeviceId,
    context: Context,
    queue: CommandQueue,
    /// `platform / device` names.
    pub name: String,
    pub is_gpu: bool,
    pub max_work_group: usize,
    /// The local-memory window a work-group's buffers get by default, in bytes: the device's
    /// `CL_DEVICE_LOCAL_MEM_SIZE` when that memory is its own (`CL_LOCAL`), 0 when it is
    /// global memory under another name (`CL_GLOBAL`, CPU devices such as PoCL's), where
    /// copying a tile into it only costs.
    pub local_mem: u64,
    /// `CL_DEVICE_LOCAL_MEM_SIZE` whatever the memory is: no work-group may use more, whatever
    /// window the user asks for (PoCL aborts a launch that does).
    pub local_mem_limit: u64,
    /// Kernel time accumulated from events when profiling.
    pub profile: bool,
    pub kernel_ns: u64,
}

fn err(what: &str, e: impl std::fmt::Display) -> RtError {
    RtError(format!("OpenCL: {what}: {e}"))
}

/// The platforms the ICD loader knows, asked once (no retry loop).
fn platforms() -> Result<Vec<PlatformId>, RtError> {
    let mut n: core::ffi::cl_uint = 0;
    let status = unsafe { core::ffi::clGetPlatformIDs(0, std::ptr::null_mut(), &mut n) };
    if status != 0 || n == 0 {
        return Err(RtError(
            "no OpenCL platform is installed (the ICD loader found none; on Debian, install pocl-opencl-icd for the CPU)".into(),
        ));
    }
    core::get_platform_ids().map_err(|e| err("listing platforms", e))
}

fn device_info(d: DeviceId, what: DeviceInfo) -> Option<DeviceInfoResult> {
    core::get_device_info(d, what).ok()
}

impl ClRuntime {
    /// Open the device `choice` names.
    pub fn open(choice: &DeviceChoice, profile: bool) -> Result<ClRuntime, RtError> {
        let mut all: Vec<(usize, PlatformId, String, DeviceId, String, bool)> = Vec::new();
        for (p, platform) in platforms()?.into_iter().enumerate() {
            let pname = core::get_platform_info(platform, PlatformInfo::Name)
                .map(|n| n.to_string())
                .unwrap_or_default();
            let Ok(devices) = core::get_device_ids(platform, Some(DeviceType::ALL), None) else {
                continue;
            };
            for d in devices {
                let dname = device_info(d, DeviceInfo::Name)
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                let gpu = matches!(
                    device_info(d, DeviceInfo::Type),
                    Some(DeviceInfoResult::Type(t)) if t.contains(DeviceType::GPU)
                );
                all.push((p, platform, pname.clone(), d, dname, gpu));
            }
        }
        if all.is_empty() {
            return Err(RtError("no OpenCL device is available".into()));
        }
        let listing = || {
            all.iter()
                .map(|(p, _, pn, _, dn, _)| format!("  {p}: {pn} / {dn}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let pick = match choice {
            DeviceChoice::Default => all.iter().position(|x| x.5).or(Some(0)),
            DeviceChoice::Ordinal(i) => (*i < all.len()).then_some(*i),
            DeviceChoice::Index { platform, device } => all
                .iter()
                .enumerate()
                .filter(|(_, x)| x.0 == *platform)
                .nth(*device)
                .map(|(i, _)| i),
            DeviceChoice::Name(n) => all.iter().position(|x| {
                let kind = if x.5 { "gpu" } else { "cpu" };
                x.2.to_lowercase().contains(n) || x.4.to_lowercase().contains(n) || kind == n
            }),
        };
        let Some(i) = pick else {
            return Err(RtError(format!(
                "POLYC_DEVICE={choice} names no OpenCL device; the devices are:\n{}",
                listing()
            )));
        };
        let (_, platform, pname, device, dname, is_gpu) = all[i].clone();
        let props = core::ContextProperties::new().platform(platform);
        let context = core::create_context(Some(&props), &[device], None, None)
            .map_err(|e| err("creating a context", e))?;
        let qprops = profile.then_some(CommandQueueProperties::PROFILING_ENABLE);
        let queue = core::create_command_queue(&context, device, qprops)
            .map_err(|e| err("creating a queue", e))?;
        let max_work_group = match device_info(device, DeviceInfo::MaxWorkGroupSize) {
            Some(DeviceInfoResult::MaxWorkGroupSize(n)) => n,
            _ => 256,
        };
        let dedicated = matches!(
            device_info(device, DeviceInfo::LocalMemType),
            Some(DeviceInfoResult::LocalMemType(DeviceLocalMemType::Local))
        );
        let local_mem_limit = match device_info(device, DeviceInfo::LocalMemSize) {
            Some(DeviceInfoResult::LocalMemSize(n)) => n,
            _ => 0,
        };
        let local_mem = if dedicated { local_mem_limit } else { 0 };
        Ok(ClRuntime {
            device,
            context,
            queue,
            name: format!("{pname} / {dname}"),
            is_gpu,
            max_work_group,
            local_mem,
            local_mem_limit,
            profile,
            kernel_ns: 0,
        })
    }

    /// Build `source`; on failure the error carries the compiler's log.
    pub fn build(&self, source: &str, options: &str) -> Result<Program, RtError> {
        let src = CString::new(source).map_err(|e| err("kernel source", e))?;
        let program = core::create_program_with_source(&self.context, &[src])
            .map_err(|e| err("creating the program", e))?;
        let opts = CString::new(options).map_err(|e| err("build options", e))?;
        if core::build_program(&program, Some(&[self.device]), &opts, None, None).is_err() {
            let log =
                core::get_program_build_info(&program, self.device, ProgramBuildInfo::BuildLog)
                    .map(|l| l.to_string())
                    .unwrap_or_default();
            return Err(RtError(format!(
                "OpenCL: the generated kernels do not build on {}:\n{log}",
                self.name
            )));
        }
        Ok(program)
    }

    pub fn kernel(&self, program: &Program, name: &str) -> Result<Kernel, RtError> {
        core::create_kernel(program, name).map_err(|e| err(&format!("kernel {name}"), e))
    }

    /// The most work-items a work-group of `kernel` may have on this device.
    pub fn kernel_work_group(&self, kernel: &Kernel) -> usize {
        match core::get_kernel_work_group_info(
            kernel,
            self.device,
            KernelWorkGroupInfo::WorkGroupSize,
        ) {
            Ok(KernelWorkGroupInfoResult::WorkGroupSize(n)) if n > 0 => n.min(self.max_work_group),
            _ => self.max_work_group,
        }
    }

    /// The hardware's allocation granularity of work-items (a warp or wavefront on GPUs).
    pub fn padding(&self) -> usize {
        if self.is_gpu {
            32
        } else {
            8
        }
    }

    /// A device buffer of `bytes` bytes (at least one), filled from `init` when given.
    pub fn buffer(&self, bytes: usize, init: Option<&[u8]>) -> Result<Mem, RtError> {
        let len = bytes.max(1);
        let mem =
            unsafe { core::create_buffer::<_, u8>(&self.context, MemFlags::READ_WRITE, len, None) }
                .map_err(|e| err(&format!("allocating {bytes} bytes"), e))?;
        if let Some(data) = init.filter(|d| !d.is_empty()) {
            self.write(&mem, 0, data)?;
        }
        Ok(mem)
    }

    /// Blocking copy of `data` into `mem` from byte `offset`.
    pub fn write(&self, mem: &Mem, offset: usize, data: &[u8]) -> Result<(), RtError> {
        // Blocking, with no events to wait for or to return.
        let (wait, done) = (None::<Event>, None::<&mut Event>);
        unsafe { core::enqueue_write_buffer(&self.queue, mem, true, offset, data, wait, done) }
            .map_err(|e| err("writing a buffer", e))
    }

    /// Blocking copy of `mem`'s bytes from `offset` into `data`.
    pub fn read(&self, mem: &Mem, offset: usize, data: &mut [u8]) -> Result<(), RtError> {
        if data.is_empty() {
            return Ok(());
        }
        let (wait, done) = (None::<Event>, None::<&mut Event>);
        unsafe { core::enqueue_read_buffer(&self.queue, mem, true, offset, data, wait, done) }
            .map_err(|e| err("reading a buffer", e))
    }

    pub fn arg(&self, kernel: &Kernel, index: u32, value: ArgVal) -> Result<(), RtError> {
        core::set_kernel_arg(kernel, index, value)
            .map_err(|e| err(&format!("kernel argument {index}"), e))
    }

    /// Launch `groups` work-groups of `local` work-items as a 1-D or 2-D ND-range.
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        groups: (usize, usize),
        local: usize,
    ) -> Result<(), RtError> {
        let dims = if groups.1 > 1 { 2 } else { 1 };
        let global = [groups.0 * local, groups.1, 1];
        let mut event = Event::null();
        unsafe {
            core::enqueue_kernel(
                &self.queue,
                kernel,
                dims,
                None,
                &global,
                Some([local, 1, 1]),
                None::<Event>,
                self.profile.then_some(&mut event),
            )
        }
        .map_err(|e| err("launching a kernel", e))?;
        if self.profile {
            core::wait_for_event(&event).map_err(|e| err("waiting for a kernel", e))?;
            let at = |what| {
                core::get_event_profiling_info(&event, what)
                    .and_then(|r| r.time())
                    .unwrap_or(0)
            };
            self.kernel_ns += at(ProfilingInfo::End).saturating_sub(at(ProfilingInfo::Start));
        }
        Ok(())
    }

    pub fn finish(&self) -> Result<(), RtError> {
        core::finish(&self.queue).map_err(|e| err("finishing the queue", e))
    }
}
