//! A busy core beside a timed program (`polyc bench --busy`), the shared machine of issue 13:
//! a thread of this command that spins from before the program starts until it has ended, as
//! `while :; do :; done` in a shell beside it would. A thread rather than a process: nothing to
//! find on the machine, and nothing left spinning when the bench stops (it ends with its
//! `Spinner`). The scheduler sees one more runnable task either way, and the generated
//! program's count of busy cores (`polyc_usable_threads`, /proc/loadavg) counts it.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A spinning thread, stopped and joined when dropped.
pub struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl Spinner {
    pub fn start() -> Spinner {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        // Integer work, not `spin_loop`'s pause: a busy process computes, and a pause would
        // hand a hyperthread's sibling more of the core than a real load leaves it.
        let thread = std::thread::spawn(move || {
            let mut n = 0u64;
            while !flag.load(Ordering::Relaxed) {
                n = black_box(n.wrapping_add(1));
            }
            n
        });
        Spinner {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the thread and waits for it; its loop's turns.
    fn stop(&mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().map_or(0, |t| t.join().unwrap_or(0))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_spinner_spins_until_stopped() {
        let mut spinner = Spinner::start();
        std::thread::sleep(Duration::from_millis(200));
        let turns = spinner.stop();
        // About a billion turns a second on a core of its own; the test suite's other threads
        // leave it less, but not a hundredth of that.
        assert!(turns > 1_000_000, "{turns} turns in 200 ms");
        assert!(spinner.thread.is_none(), "joined");
        assert_eq!(spinner.stop(), 0, "stopping again finds no thread");
    }
}
