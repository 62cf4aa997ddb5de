//! The Chrome Trace Event export of planned modules (`lattice-translate --export-trace`,
//! `lattice-opt --trace=FILE`): the format Perfetto, `chrome://tracing`, speedscope and the
//! Ascend profiler's viewers read.
//!
//! What a trace holds, per module (one *process* each, `pid` 1, 2, … in the order given):
//! - one *thread* (track) per pipe of the target, `tid` = pipe index + 1, named after the pipe
//!   and sorted in the target's order;
//! - every command, spills included, as one complete event (`ph: "X"`) on its pipe's track:
//!   `ts` is its start and `dur` its cycles under the independent verifier's replay (DESIGN §1.3;
//!   the times are [`crate::verify::timeline`]'s, nothing is re-timed here), with the op, opcode,
//!   buffers, the tier of the buffer it writes, its σ position, cycles and the module's phase in
//!   `args`; ALLOC and FREE run on no pipe and take no time, so they appear only in the counters;
//! - a flow (`ph: "s"` then `ph: "f"`, binding to the enclosing slice) from each SPILL_OUT to the
//!   SPILL_IN that reloads its copy;
//! - per tier, two counter tracks (`ph: "C"`), logical and physical bytes live over time
//!   ([`counters`]);
//! - instant events (`ph: "i"`) where σ first reaches the logical peak (global scope) and each
//!   tier's own logical peak (process scope), at that ALLOC's replayed start, with the bytes.
//!
//! Time unit: one cycle is one microsecond of the format (`ts` and `dur` are whole cycles), so a
//! viewer's "1 ms" is 1,000 cycles; `otherData.time_unit` says so in every file.
//!
//! Streaming: events go to the writer as they are made, per pipe in issue order (so each track's
//! events come sorted by start), and nothing of the JSON is held in memory; the memory beyond the
//! module is the replay's. Only modules the replay finds valid are traced ([`traceable`]).
//! Deterministic bytes. O(V + E + (B + S) log (B + S)): the replay, one pass over the ops, and
//! the counters' sort.

pub mod counters;

use crate::verify::{timeline, Timeline};
use counters::{samples, Series};
use lattice::diagnostic::Diagnostic;
use lattice_lir::{Module, OpId, OpKind};
use std::io::{self, Write};

/// The replay's timeline of `module`, which its trace shows; or, when the replay finds
/// violations (a trace of an invalid plan would show a timing the contest's rules do not
/// define), an error naming the module followed by each violation as an error at its op.
pub fn traceable(module: &Module) -> Result<Timeline, Vec<Diagnostic>> {
    timeline(module).map_err(|replay| {
        let summary = format!(
            "module @{}: the independent replay finds {} violation(s); only valid plans are traced",
            module.name,
            replay.violations.len()
        );
        std::iter::once(Diagnostic::error(None, summary))
            .chain(replay.violations.iter().map(|v| {
                let loc = v.op.and_then(|op| module.op(op).loc);
                Diagnostic::error(loc, v.to_string())
            }))
            .collect()
    })
}

/// The `otherData.time_unit` of every trace.
pub const TIME_UNIT: &str = "cycles: ts and dur count cycles, one cycle per microsecond of the \
                             trace format (a viewer's 1 ms is 1,000 cycles)";

/// Writes the trace of `modules`, each with its [`traceable`] timeline, to `out`: one process
/// per module.
pub fn write_trace(modules: &[(&Module, &Timeline)], out: &mut dyn Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 16, out);
    write!(
        w,
        "{{\"otherData\":{{\"generator\":\"lattice\",\"time_unit\":"
    )?;
    string(&mut w, TIME_UNIT)?;
    write!(w, ",\"modules\":[")?;
    for (k, (m, _)) in modules.iter().enumerate() {
        write!(w, "{}", if k == 0 { "" } else { "," })?;
        string(&mut w, &m.name)?;
    }
    write!(w, "]}},\n\"traceEvents\":[\n")?;
    let mut first = true;
    let mut flow = 0u64;
    for (k, (m, t)) in modules.iter().enumerate() {
        let mut events = Events {
            w: &mut w,
            first: &mut first,
            pid: k + 1,
        };
        module_events(m, t, &mut events, &mut flow)?;
    }
    write!(w, "\n]}}\n")?;
    w.flush()
}

/// The event writer of one process: separates events by `,\n` and stamps the `pid`.
struct Events<'a, W: Write> {
    w: &'a mut W,
    first: &'a mut bool,
    pid: usize,
}

impl<W: Write> Events<'_, W> {
    /// Opens an event of phase `ph` named `name`: `{"ph":…,"pid":…,"name":…`; the caller writes
    /// the rest and the closing brace.
    fn open(&mut self, ph: &str, name: &str) -> io::Result<&mut W> {
        let sep = if std::mem::replace(self.first, false) {
            ""
        } else {
            ",\n"
        };
        write!(
            self.w,
            "{sep}{{\"ph\":\"{ph}\",\"pid\":{},\"name\":",
            self.pid
        )?;
        string(self.w, name)?;
        Ok(self.w)
    }

    /// A metadata event (`process_name`, `thread_sort_index`, …) with one argument.
    fn metadata(
        &mut self,
        tid: Option<usize>,
        name: &str,
        arg: &str,
        value: &str,
    ) -> io::Result<()> {
        let w = self.open("M", name)?;
        if let Some(tid) = tid {
            write!(w, ",\"tid\":{tid}")?;
        }
        write!(w, ",\"args\":{{\"{arg}\":{value}}}}}")
    }
}

fn module_events<W: Write>(
    m: &Module,
    t: &Timeline,
    e: &mut Events<'_, W>,
    flow: &mut u64,
) -> io::Result<()> {
    let phase = m.phase.keyword();
    e.metadata(
        None,
        "process_name",
        "name",
        &json(&format!("@{} ({phase})", m.name)),
    )?;
    e.metadata(None, "process_sort_index", "sort_index", &e.pid.to_string())?;
    for (p, pipe) in m.target.pipes.iter().enumerate() {
        e.metadata(Some(p + 1), "thread_name", "name", &json(pipe))?;
        e.metadata(
            Some(p + 1),
            "thread_sort_index",
            "sort_index",
            &p.to_string(),
        )?;
    }
    // Each pipe's ops in σ order: its issue order, in which starts never decrease.
    let mut chains: Vec<Vec<(usize, OpId)>> = vec![Vec::new(); m.target.pipes.len()];
    for (position, &v) in t.order.iter().enumerate() {
        if let Some(p) = m.op(v).kind.pipe() {
            chains[p.index()].push((position, v));
        }
    }
    for (p, chain) in chains.iter().enumerate() {
        for &(position, v) in chain {
            command(m, t, e, p + 1, position, v)?;
        }
    }
    for r in &t.residencies {
        let Some(out) = r.reloads else { continue };
        *flow += 1;
        let name = format!("spill @b{}", m.buffer(r.buffer).name);
        for (ph, v) in [("s", out), ("f", r.opened_by)] {
            let tid = m.op(v).kind.pipe().map_or(0, |p| p.index() + 1);
            let w = e.open(ph, &name)?;
            write!(
                w,
                ",\"cat\":\"spill\",\"id\":{flow},\"tid\":{tid},\"ts\":{}{}}}",
                t.start[v.index()],
                if ph == "f" { ",\"bp\":\"e\"" } else { "" }
            )?;
        }
    }
    for (tier_index, tier) in m.target.tiers.iter().enumerate() {
        for series in Series::ALL {
            let name = format!("{} {}", tier.name, series.word());
            for s in samples(m, t, tier_index, series) {
                let w = e.open("C", &name)?;
                write!(
                    w,
                    ",\"ts\":{},\"args\":{{\"bytes\":{}}}}}",
                    s.cycle, s.bytes
                )?;
            }
        }
    }
    let main: Vec<&str> = m
        .target
        .tiers
        .iter()
        .filter(|tier| !tier.staging)
        .map(|tier| tier.name.as_str())
        .collect();
    let peaks = std::iter::once((main.join("+"), t.logical_peak, "g")).chain(
        m.target
            .tiers
            .iter()
            .zip(&t.tier_peaks)
            .map(|(tier, &peak)| (tier.name.clone(), peak, "p")),
    );
    for (tiers, peak, scope) in peaks {
        let Some(at) = peak.at else { continue };
        let name = format!("logical peak {tiers}: {} B", peak.bytes);
        let position = t.order.iter().position(|&v| v == at).unwrap_or(0);
        let w = e.open("i", &name)?;
        write!(
            w,
            ",\"s\":\"{scope}\",\"tid\":0,\"ts\":{},\"args\":{{\"bytes\":{},\"tiers\":",
            t.start[at.index()],
            peak.bytes
        )?;
        string(w, &tiers)?;
        write!(w, ",\"op\":\"%{}\",\"sigma\":{position}}}}}", m.op(at).name)?;
    }
    Ok(())
}

/// Op `v` (at σ `position`) as a complete event on track `tid`.
fn command<W: Write>(
    m: &Module,
    t: &Timeline,
    e: &mut Events<'_, W>,
    tid: usize,
    position: usize,
    v: OpId,
) -> io::Result<()> {
    let op = m.op(v);
    let (opcode, cat) = match &op.kind {
        OpKind::Compute { opcode, .. } => (opcode.as_str(), "command"),
        OpKind::SpillOut { .. } => ("SPILL_OUT", "spill"),
        OpKind::SpillIn { .. } => ("SPILL_IN", "spill"),
        OpKind::Alloc { .. } | OpKind::Free { .. } => return Ok(()),
    };
    let buffers = op.kind.buffers();
    let name = match op.kind {
        OpKind::Compute { .. } => opcode.to_owned(),
        _ => format!("{opcode} @b{}", m.buffer(buffers[0]).name),
    };
    let (start, end) = (t.start[v.index()], t.end[v.index()]);
    let w = e.open("X", &name)?;
    write!(
        w,
        ",\"cat\":\"{cat}\",\"tid\":{tid},\"ts\":{start},\"dur\":{},\"args\":{{\"op\":\"%{}\",\"opcode\":",
        end - start,
        op.name
    )?;
    string(w, opcode)?;
    write!(w, ",\"buffers\":[")?;
    for (i, b) in buffers.iter().enumerate() {
        write!(
            w,
            "{}\"@b{}\"",
            if i == 0 { "" } else { "," },
            m.buffer(*b).name
        )?;
    }
    write!(w, "],\"tier\":")?;
    let tier = buffers
        .first()
        .map(|&b| &m.target.tiers[m.buffer(b).tier.index()].name);
    match tier {
        Some(tier) => string(w, tier)?,
        None => write!(w, "null")?,
    }
    write!(
        w,
        ",\"sigma\":{position},\"cycles\":{},\"phase\":\"{}\"}}}}",
        op.kind.cycles(),
        m.phase.keyword()
    )
}

/// `s` as a JSON string.
fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Writes `s` as a JSON string.
fn string(w: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(w, s).map_err(io::Error::from)
}
