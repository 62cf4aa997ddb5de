//! Reading inputs and writing outputs the way every lattice tool must.
//!
//! `-` means standard input or output. Files are written atomically: the bytes go to a temporary
//! file in the destination's directory, which is renamed over the destination only once complete,
//! so a failing run never leaves a partial or truncated output and never touches its input. A
//! destination that exists and is not a regular file (`/dev/null`, a FIFO, a terminal) is written
//! in place instead: renaming over it would replace the device with a regular file.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// An I/O failure with the path it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct IoError {
    /// The file (or `-`).
    pub path: String,
    /// What the system said.
    pub source: io::Error,
}

fn located(path: &Path) -> impl FnOnce(io::Error) -> IoError + '_ {
    move |source| IoError {
        path: path.display().to_string(),
        source,
    }
}

/// Reads a whole text file, or standard input for `-`.
pub fn read_text(path: &Path) -> Result<String, IoError> {
    if path == Path::new("-") {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(located(path))?;
        return Ok(text);
    }
    fs::read_to_string(path).map_err(located(path))
}

/// Writes `bytes` to `path` atomically, or to standard output for `-`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    if path == Path::new("-") {
        let mut out = io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(located(path));
    }
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut out = fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(located(path))?;
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(located(path));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().ok_or_else(|| IoError {
        path: path.display().to_string(),
        source: io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
    })?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    let result = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(located(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn writing_to_a_device_keeps_the_device() {
        let null = Path::new("/dev/null");
        let before = fs::metadata(null).unwrap().file_type();
        write_atomic(null, b"discarded").unwrap();
        assert_eq!(fs::metadata(null).unwrap().file_type(), before);
        assert!(!fs::metadata(null).unwrap().is_file());
    }
}
