//! Reading inputs and writing outputs the way every lattice tool must.
//!
//! `-` means standard input or output. Files are written atomically: the bytes go to a temporary
//! file in the destination's directory, which is renamed over the destination only once complete,
//! so a failing run never leaves a partial or truncated output and never touches its input. An
//! existing file keeps its permission bits (the temporary takes them before the rename), and one
//! that is read-only (no write bit, or not writable by this user) is refused with an error
//! naming it rather than replaced, as an editor or `cp` would. A
//! destination that exists and is not a regular file (`/dev/null`, a FIFO, a terminal), or that
//! is a symbolic link (`/dev/stderr`, which may point at a redirected file), is written in place
//! instead: renaming over it would replace the device or the link with a regular file.
//!
//! A run with several outputs writes them with [`write_all_or_nothing`]: every file is first
//! written to its temporary, then devices and standard output get their bytes, and only when all
//! of that succeeded are the temporaries renamed into place — so a failure (a missing directory,
//! a full device) leaves every destination as it was; [`stream_all_or_nothing`] does the same
//! with outputs streamed into their temporaries (a trace of a million ops is never held whole in
//! memory). [`same_destination`] tells when two paths
//! name one file, which callers reject before running.

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

/// Reads a whole file as bytes, or standard input for `-` (for inputs that may be binary, such
/// as MLIR bytecode).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, IoError> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        io::stdin().read_to_end(&mut bytes).map_err(located(path))?;
        return Ok(bytes);
    }
    fs::read(path).map_err(located(path))
}

/// The text of `bytes` read from `path`, or the error [`read_text`] gives for them (the byte
/// offset of the first invalid UTF-8 sequence added).
pub fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, IoError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let message = format!("stream did not contain valid UTF-8 (at byte {at})");
        located(path)(io::Error::new(io::ErrorKind::InvalidData, message))
    })
}

/// Where the bytes for a path go.
enum Destination {
    /// Standard output (`-`, `/dev/stdout`).
    Stdout,
    /// Standard error (`/dev/stderr`): the process's own stream, wherever it was redirected.
    Stderr,
    /// An existing destination that is not a regular file (a device, a FIFO): written in place.
    InPlace(PathBuf),
    /// A regular file (existing or not), through a temporary and a rename; a symbolic link is
    /// followed, so the link stays and its target gets the bytes.
    File(PathBuf),
}

impl Destination {
    fn of(path: &Path) -> Destination {
        if path == Path::new("-") || path == Path::new("/dev/stdout") {
            return Destination::Stdout;
        }
        if path == Path::new("/dev/stderr") {
            return Destination::Stderr;
        }
        let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let resolved = if is_link {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        } else {
            path.to_path_buf()
        };
        if fs::metadata(&resolved).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            Destination::InPlace(resolved)
        } else {
            Destination::File(resolved)
        }
    }

    fn in_place(&self) -> bool {
        !matches!(self, Destination::File(_))
    }

    /// Writes what `fill` produces here directly; `None` for a [`Destination::File`], which is
    /// staged.
    fn write_in_place(&self, fill: &mut Stream<'_>) -> Option<io::Result<()>> {
        let mut write = |out: &mut dyn Write| fill(out).and_then(|()| out.flush());
        Some(match self {
            Destination::Stdout => write(&mut io::stdout().lock()),
            Destination::Stderr => write(&mut io::stderr().lock()),
            Destination::InPlace(path) => fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|mut out| write(&mut out)),
            Destination::File(_) => return None,
        })
    }
}

/// Produces a destination's bytes into the writer it is given, streaming them (see
/// [`stream_all_or_nothing`]).
pub type Stream<'a> = Box<dyn FnMut(&mut dyn Write) -> io::Result<()> + 'a>;

/// Writes `bytes` to `path` atomically, or to standard output for `-` (see the module header).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    write_all_or_nothing(&[(path, bytes)])
}

impl IoError {
    /// Whether the reader of standard output went away (`lattice-opt … | head -1`). Tools then
    /// stop quietly with success, as Unix tools do: nobody is left to read a message.
    pub fn is_closed_stdout(&self) -> bool {
        (self.path == "-" || self.path == "/dev/stdout")
            && self.source.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Writes `text` to standard error, ignoring failures: when even standard error is gone there is
/// nobody to tell (unlike `eprint!`, which panics then).
pub fn report(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Writes `text` to standard output; `Ok(false)` when its reader went away (see
/// [`IoError::is_closed_stdout`]), an error for any other failure.
pub fn print_text(text: &str) -> Result<bool, IoError> {
    match write_atomic(Path::new("-"), text.as_bytes()) {
        Ok(()) => Ok(true),
        Err(e) if e.is_closed_stdout() => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether `path` is written in place rather than through a temporary: standard output, a
/// device, a FIFO (see [`Destination`]).
pub fn writes_in_place(path: &Path) -> bool {
    Destination::of(path).in_place()
}

/// The temporary `path` is staged in: a hidden file beside it, named after it and this process.
fn staging_path(path: &Path) -> Result<PathBuf, IoError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().ok_or_else(|| IoError {
        path: path.display().to_string(),
        source: io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
    })?;
    Ok(dir.join(format!(
        ".{}.tmp-{}",
        file_name.to_string_lossy(),
        std::process::id()
    )))
}

/// The permissions an existing `file` must keep (`None` for a new file), or why it must not be
/// replaced: it is read-only. The mode bits decide even for the superuser, whom the system would
/// let write anything; for others a file the system would not let them open is refused too.
fn replaceable(file: &Path) -> io::Result<Option<fs::Permissions>> {
    let meta = match fs::metadata(file) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let read_only = || io::Error::new(io::ErrorKind::PermissionDenied, "the file is read-only");
    if meta.permissions().readonly() {
        return Err(read_only());
    }
    match fs::OpenOptions::new().write(true).open(file) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => Err(read_only()),
        _ => Ok(Some(meta.permissions())),
    }
}

/// The error of creating or writing the temporary `tmp`: said of the directory when the file
/// could not be created there (a missing or read-only directory), since the destination itself
/// may well exist.
fn staging_error(tmp: &Path, e: io::Error) -> io::Error {
    let dir = tmp.parent().unwrap_or(Path::new("."));
    match e.kind() {
        io::ErrorKind::NotFound
        | io::ErrorKind::PermissionDenied
        | io::ErrorKind::ReadOnlyFilesystem => io::Error::new(
            e.kind(),
            format!("cannot create a file in {}: {e}", dir.display()),
        ),
        _ => e,
    }
}

/// Writes every `(path, bytes)` or, on the first failure, none of the files: files are staged
/// in temporaries, then in-place destinations (standard output, devices) are written, then the
/// temporaries are renamed into place. What an in-place destination received before a later
/// failure cannot be taken back; files are never left half-written or replaced.
pub fn write_all_or_nothing(writes: &[(&Path, &[u8])]) -> Result<(), IoError> {
    let mut streams: Vec<(&Path, Stream<'_>)> = writes
        .iter()
        .map(|&(path, bytes)| (path, bytes_stream(bytes)))
        .collect();
    stream_all_or_nothing(&mut streams)
}

/// The [`Stream`] that writes `bytes`.
pub fn bytes_stream(bytes: &[u8]) -> Stream<'_> {
    Box::new(move |out: &mut dyn Write| out.write_all(bytes))
}

/// [`write_all_or_nothing`] with each destination's bytes streamed by a [`Stream`] into its
/// temporary (or its device) instead of held in memory: large outputs such as traces. A stream
/// that fails counts as a failed write.
pub fn stream_all_or_nothing(writes: &mut [(&Path, Stream<'_>)]) -> Result<(), IoError> {
    let destinations: Vec<Destination> = writes.iter().map(|(p, _)| Destination::of(p)).collect();
    // (temporary, final file, the path as given for messages)
    let mut staged: Vec<(PathBuf, &Path, &Path)> = Vec::new();
    let discard = |staged: &[(PathBuf, &Path, &Path)]| {
        for (tmp, _, _) in staged {
            let _ = fs::remove_file(tmp);
        }
    };
    for ((path, fill), destination) in writes.iter_mut().zip(&destinations) {
        let Destination::File(file) = destination else {
            continue;
        };
        let staged_write = replaceable(file).map_err(located(path)).and_then(|mode| {
            let tmp = staging_path(file)?;
            fs::File::create(&tmp)
                .and_then(|mut out| fill(&mut out).and_then(|()| out.flush()))
                .and_then(|()| mode.map_or(Ok(()), |m| fs::set_permissions(&tmp, m)))
                .map_err(|e| staging_error(&tmp, e))
                .map_err(located(path))?;
            Ok(tmp)
        });
        match staged_write {
            Ok(tmp) => staged.push((tmp, file, path)),
            Err(e) => {
                // A failed write may have created its temporary.
                if let Ok(tmp) = staging_path(file) {
                    let _ = fs::remove_file(tmp);
                }
                discard(&staged);
                return Err(e);
            }
        }
    }
    for ((path, fill), destination) in writes.iter_mut().zip(&destinations) {
        if let Some(Err(e)) = destination.write_in_place(fill) {
            discard(&staged);
            return Err(located(path)(e));
        }
    }
    for (i, (tmp, file, path)) in staged.iter().enumerate() {
        if let Err(e) = fs::rename(tmp, file) {
            discard(&staged[i..]);
            return Err(located(path)(e));
        }
    }
    Ok(())
}

/// Whether `a` and `b` name the same file: equal paths, or paths that resolve to one file (or,
/// for files not created yet, to one name in one directory). Standard output (`-`) and devices
/// are never "the same file": several outputs may share them.
pub fn same_destination(a: &Path, b: &Path) -> bool {
    if writes_in_place(a) || writes_in_place(b) {
        return false;
    }
    if a == b {
        return true;
    }
    let resolved = |p: &Path| {
        fs::canonicalize(p).ok().or_else(|| {
            let parent = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            Some(fs::canonicalize(parent).ok()?.join(p.file_name()?))
        })
    };
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
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

    #[cfg(unix)]
    #[test]
    fn writing_through_a_symlink_keeps_the_link() {
        let dir = std::env::temp_dir().join(format!("lattice-io-link-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("target.txt");
        fs::write(&target, "old").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failing_destination_leaves_every_file_as_it_was() {
        let dir = std::env::temp_dir().join(format!("lattice-io-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let kept = dir.join("kept.txt");
        fs::write(&kept, "old").unwrap();
        let missing = dir.join("no-such-dir").join("m.json");
        let err = write_all_or_nothing(&[(&kept, b"new"), (&missing, b"{}")]).unwrap_err();
        assert!(err.path.ends_with("m.json"), "{err}");
        assert_eq!(fs::read_to_string(&kept).unwrap(), "old");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["kept.txt"], "a temporary was left behind");
        write_all_or_nothing(&[(&kept, b"new"), (&dir.join("b.txt"), b"b")]).unwrap();
        assert_eq!(fs::read_to_string(&kept).unwrap(), "new");
        assert!(same_destination(&kept, &dir.join(".").join("kept.txt")));
        assert!(same_destination(
            &dir.join("fresh"),
            &dir.join(".").join("fresh")
        ));
        assert!(!same_destination(&kept, &dir.join("b.txt")));
        assert!(!same_destination(Path::new("-"), Path::new("-")));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_device_cancels_the_files() {
        let dir = std::env::temp_dir().join(format!("lattice-io-full-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let out = dir.join("out.lir");
        let full = Path::new("/dev/full");
        assert!(write_all_or_nothing(&[(&out, b"ir"), (full, b"metrics")]).is_err());
        assert!(!out.exists());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_file_keeps_its_mode_and_a_read_only_one_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("lattice-io-mode-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let private = dir.join("private.lir");
        fs::write(&private, "old").unwrap();
        fs::set_permissions(&private, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&private, b"new").unwrap();
        assert_eq!(fs::read_to_string(&private).unwrap(), "new");
        let mode = fs::metadata(&private).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);

        let locked = dir.join("locked.lir");
        fs::write(&locked, "kept").unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o444)).unwrap();
        let err = write_atomic(&locked, b"new").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: the file is read-only", locked.display())
        );
        assert_eq!(fs::read_to_string(&locked).unwrap(), "kept");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "a temporary was left behind: {names:?}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_of_a_read_only_file_system_is_refused_as_read_only() {
        let err = write_atomic(Path::new("/proc/version"), b"x").unwrap_err();
        assert_eq!(err.to_string(), "/proc/version: the file is read-only");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let err = write_atomic(Path::new("no-such-dir/out.lir"), b"x").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("no-such-dir/out.lir: cannot create a file in no-such-dir: "),
            "{err}"
        );
    }
}
