//! A child process run to its end, or killed at a time limit, without polling it: the parent
//! sleeps in `wait` and a watchdog thread sleeps until the limit.
//!
//! `polyc bench` and `polyc tune` used to poll (`try_wait` every 2 or 5 ms). Each poll woke the
//! parent, a runnable task for a moment, while the program it timed counted the runnable tasks
//! to decide how many threads to start (`polyc_usable_threads`: one where another task keeps
//! the second of two cores busy). Under a polling parent heat-3d LARGE started one thread in 1
//! of 10 runs, under a waiting one in none of 10; in `polyc bench` its rounds were bimodal
//! (771-1858 ms).

use std::process::{Child, ExitStatus};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// How a child ended.
pub struct Finished {
    /// None: killed at the limit.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    /// From this call to the child's end.
    pub wall: Duration,
}

/// Waits for `child` (its stdout and stderr piped, or not) and reads its output, killing it
/// once `limit` has passed. A process the child starts that keeps its pipes open is not
/// killed, and the call waits for it (the programs timed start threads, not processes).
pub fn run_to_end(child: Child, limit: Duration) -> std::io::Result<Finished> {
    let start = Instant::now();
    let pid = Pid::from_raw(child.id() as i32);
    let (ended, watch) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || match watch.recv_timeout(limit) {
        Err(RecvTimeoutError::Timeout) => {
            // The parent reaps the child only in `wait`, which signals `ended` right after:
            // the pid could name another process only if the limit passed in that moment and
            // the system reused the pid within it.
            let _ = kill(pid, Signal::SIGKILL);
            true
        }
        _ => false,
    });
    let out = child.wait_with_output();
    let wall = start.elapsed();
    let _ = ended.send(());
    let killed = watchdog.join().unwrap_or(false);
    let out = out?;
    Ok(Finished {
        status: (!killed).then_some(out.status),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        wall,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn spawn(script: &str) -> Child {
        Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn a_child_that_ends_in_time_gives_its_status_and_output() {
        let f = run_to_end(
            spawn("echo out; echo err >&2; exit 3"),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(f.status.and_then(|s| s.code()), Some(3));
        assert_eq!((f.stdout.as_str(), f.stderr.as_str()), ("out\n", "err\n"));
        assert!(f.wall < Duration::from_secs(30));
    }

    #[test]
    fn a_child_past_its_limit_is_killed() {
        let f = run_to_end(spawn("exec sleep 30"), Duration::from_millis(200)).unwrap();
        assert!(f.status.is_none());
        assert!(f.wall < Duration::from_secs(10), "{:?}", f.wall);
    }
}
