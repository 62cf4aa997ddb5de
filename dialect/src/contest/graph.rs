//! Imports a contest JSON graph (`{"Nodes": [...], "Edges": [...]}`) as a `parsed` module.
//!
//! Node `Id`s become op names and arena indices (op `%i` is `OpId` i), `BufId`s become buffer
//! names, buffers are declared in BufId order, a buffer is `backed` iff some `COPY_IN` names it,
//! each op's dependencies are its in-edges sorted by source id without duplicates, and σ is the id
//! order when it respects every edge, else Kahn's order taking the smallest ready id. Everything
//! the model would otherwise have to assume is checked first and reported as one
//! [`ContestError`] naming the node or edge (ids dense from 0, lifecycles paired and consistent,
//! names known to the target, sizes within capacity, acyclicity); the result also passes
//! [`verify_module`]. Complexity: O(text + (V + E) log V).

use super::locate::{element_offsets, loc_of, ElementOffsets};
use super::range::out_of_range;
use super::{ContestError, NodeRef};
use crate::cycle::find_cycle;
use crate::diag::Loc;
use crate::ids::{BufferId, OpId, TierId};
use crate::module::{Buffer, Dep, DepKind, Module, Op, OpKind};
use crate::target::Target;
use crate::verify::verify_module;
use serde::Deserialize;
use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// How to build the target of an imported graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Capacity overrides by tier name, applied in order; an unknown tier is an error.
    pub capacities: Vec<(String, u64)>,
    /// Whether each staging (L0) tier may hold at most one live buffer.
    pub l0_exclusive: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            capacities: Vec::new(),
            l0_exclusive: true,
        }
    }
}

/// The JSON document. Unknown top-level keys are tolerated (metadata does not change the graph).
#[derive(Deserialize)]
struct RawGraph {
    #[serde(rename = "Nodes")]
    nodes: Vec<RawNode>,
    #[serde(rename = "Edges")]
    edges: Vec<Vec<u32>>,
}

/// One node with every field optional, so that a node of the wrong shape is reported by this
/// importer in words rather than by serde as a missing field. Unknown keys are rejected: which
/// keys are present decides the node's kind, so a misspelt one must not pass silently.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    #[serde(rename = "Id")]
    id: u32,
    #[serde(rename = "Op")]
    op: String,
    #[serde(rename = "BufId")]
    buf_id: Option<u32>,
    #[serde(rename = "Size")]
    size: Option<u64>,
    #[serde(rename = "Type")]
    tier: Option<String>,
    #[serde(rename = "Pipe")]
    pipe: Option<String>,
    #[serde(rename = "Cycles")]
    cycles: Option<u64>,
    #[serde(rename = "Bufs")]
    bufs: Option<Vec<u32>>,
}

/// A node after its shape is checked and its names resolved.
enum Node<'a> {
    Lifecycle {
        alloc: bool,
        buffer: u32,
        size: u64,
        tier: TierId,
    },
    Compute {
        opcode: &'a str,
        pipe: crate::ids::PipeId,
        cycles: u64,
        bufs: &'a [u32],
    },
}

/// Where a buffer's lifecycle nodes are, by node index.
struct Lifecycle {
    alloc: Option<usize>,
    free: Option<usize>,
    backed: bool,
}

/// Imports the JSON graph `json` as a module called `name` (sanitised to the characters LIR
/// allows in a module name).
///
/// ```
/// use lattice_lir::contest::{import_graph, ImportOptions};
/// use lattice_lir::Phase;
///
/// let json = r#"{"Nodes": [
///   {"Id": 0, "Op": "ALLOC", "BufId": 0, "Size": 64, "Type": "L1"},
///   {"Id": 1, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 278, "Bufs": [0]},
///   {"Id": 2, "Op": "FREE", "BufId": 0, "Size": 64, "Type": "L1"}
/// ], "Edges": [[0, 1], [1, 2]]}"#;
/// let module = import_graph(json, "tiny case", &ImportOptions::default()).unwrap();
/// assert_eq!(module.name, "tiny_case");
/// assert_eq!((module.phase, module.ops.len(), module.buffers.len()), (Phase::Parsed, 3, 1));
/// assert!(import_graph("{}", "bad", &ImportOptions::default()).is_err());
/// ```
pub fn import_graph(
    json: &str,
    name: &str,
    options: &ImportOptions,
) -> Result<Module, ContestError> {
    let target = build_target(options)?;
    let raw: RawGraph = serde_json::from_str(json).map_err(|e| serde_error(json, &e))?;
    let importer = Importer {
        json,
        raw: &raw,
        target: &target,
        offsets: OnceCell::new(),
    };
    let order = importer.id_order()?;
    let nodes = importer.resolve()?;
    let buffers = importer.lifecycles(&nodes)?;
    let deps = importer.deps()?;
    let schedule = importer.schedule(&deps)?;

    let mut module = Module::new(sanitize(name), target.clone());
    let mut buffer_ids: HashMap<u32, BufferId> = HashMap::with_capacity(buffers.len());
    for (&buf, life) in &buffers {
        if let Some(&Node::Lifecycle { size, tier, .. }) = life.alloc.and_then(|i| nodes.get(i)) {
            let id = module.add_buffer(Buffer {
                name: buf,
                tier,
                size,
                backed: life.backed,
                loc: None,
            });
            buffer_ids.insert(buf, id);
        }
    }
    // Op ids are node ids: op `id` is pushed as the id-th op.
    for (id, (&index, deps)) in order.iter().zip(deps).enumerate() {
        let kind = importer.op_kind(index, nodes.get(index), &buffer_ids)?;
        module.add_op(Op {
            name: u32::try_from(id).unwrap_or(u32::MAX),
            kind,
            deps,
            loc: None,
        });
    }
    module.schedule = schedule;
    if let Err(errors) = verify_module(&module) {
        // Verify again with the JSON positions of the ops, so that each violation points into the
        // file; the module itself never carries them, like any module not read from LIR text.
        for (op, &index) in module.ops.iter_mut().zip(&order) {
            op.loc = importer.node_loc(index);
        }
        let errors = verify_module(&module).err().unwrap_or(errors);
        return Err(ContestError::Invalid { file: None, errors });
    }
    Ok(module)
}

/// The contest target with `options` applied.
fn build_target(options: &ImportOptions) -> Result<Target, ContestError> {
    let mut target = Target::contest();
    target.l0_exclusive = options.l0_exclusive;
    target.set_capacities(&options.capacities).map_err(|tier| {
        ContestError::UnknownCapacityTier {
            tier,
            valid: target.tier_names(),
        }
    })?;
    Ok(target)
}

/// A module name LIR can print: characters outside `[A-Za-z0-9_.$-]` become `_`.
fn sanitize(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.$-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        "_".to_owned()
    } else {
        clean
    }
}

/// serde's error, located in characters and without serde's own " at line … column …" suffix.
fn serde_error(json: &str, e: &serde_json::Error) -> ContestError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_owned();
    // serde counts columns in bytes; diagnostics count characters.
    let col = json
        .split('\n')
        .nth(e.line().saturating_sub(1))
        .map_or(e.column(), |line| {
            let mut end = e.column().min(line.len());
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line[..end].chars().count()
        });
    let loc = Loc::new(e.line().max(1), col.max(1));
    if e.classify() == serde_json::error::Category::Data {
        if let Some(error) = out_of_range(json, &message, e.line(), e.column()) {
            return error;
        }
    }
    match e.classify() {
        serde_json::error::Category::Data => ContestError::Shape { loc, message },
        _ => ContestError::Syntax { loc, message },
    }
}

struct Importer<'a> {
    json: &'a str,
    raw: &'a RawGraph,
    target: &'a Target,
    /// Element positions, scanned only when an error or a verification needs them.
    offsets: OnceCell<ElementOffsets>,
}

impl<'a> Importer<'a> {
    fn offsets(&self) -> &ElementOffsets {
        self.offsets.get_or_init(|| element_offsets(self.json))
    }

    fn node_loc(&self, index: usize) -> Option<Loc> {
        loc_of(self.json, &self.offsets().nodes, index)
    }

    fn edge_loc(&self, index: usize) -> Option<Loc> {
        loc_of(self.json, &self.offsets().edges, index)
    }

    fn node_ref(&self, index: usize) -> NodeRef {
        let id = self.raw.nodes.get(index).map_or(0, |n| n.id);
        NodeRef { index, id }
    }

    /// The node index of every id 0..N-1, after checking the ids are exactly that set.
    fn id_order(&self) -> Result<Vec<usize>, ContestError> {
        let n = self.raw.nodes.len();
        let mut slot: Vec<Option<usize>> = vec![None; n];
        for (index, node) in self.raw.nodes.iter().enumerate() {
            let node_ref = self.node_ref(index);
            match slot.get_mut(node.id as usize) {
                Some(Some(first)) => {
                    return Err(ContestError::DuplicateId {
                        loc: self.node_loc(index),
                        node: node_ref,
                        first: *first,
                    })
                }
                Some(s) => *s = Some(index),
                None => {
                    // N nodes with one id out of 0..N-1 leave some id in range unused.
                    let missing = self
                        .raw
                        .nodes
                        .iter()
                        .map(|n| n.id as usize)
                        .filter(|&i| i < n);
                    let mut used = vec![false; n];
                    for i in missing {
                        if let Some(u) = used.get_mut(i) {
                            *u = true;
                        }
                    }
                    let gap = used.iter().position(|u| !u).unwrap_or(n);
                    return Err(ContestError::IdGap {
                        loc: self.node_loc(index),
                        node: node_ref,
                        count: n,
                        missing: u32::try_from(gap).unwrap_or(u32::MAX),
                    });
                }
            }
        }
        // Every slot is filled: N distinct ids below N.
        Ok(slot.into_iter().flatten().collect())
    }

    /// Checks each node's shape and resolves its tier or pipe, in `Nodes` order.
    fn resolve(&self) -> Result<Vec<Node<'a>>, ContestError> {
        self.raw
            .nodes
            .iter()
            .enumerate()
            .map(|(index, node)| self.resolve_node(index, node))
            .collect()
    }

    fn resolve_node(&self, index: usize, node: &'a RawNode) -> Result<Node<'a>, ContestError> {
        let at = self.node_ref(index);
        let loc = || self.node_loc(index);
        let shape = |problem: String| ContestError::NodeShape {
            loc: loc(),
            node: at,
            problem,
        };
        let present = |fields: [(&'static str, bool); 3]| -> Vec<&'static str> {
            fields.iter().filter(|f| f.1).map(|f| f.0).collect()
        };
        let lifecycle_fields = [
            ("BufId", node.buf_id.is_some()),
            ("Size", node.size.is_some()),
            ("Type", node.tier.is_some()),
        ];
        let compute_fields = [
            ("Pipe", node.pipe.is_some()),
            ("Cycles", node.cycles.is_some()),
            ("Bufs", node.bufs.is_some()),
        ];
        let op = node.op.as_str();
        if op == "ALLOC" || op == "FREE" {
            let extra = present(compute_fields);
            if !extra.is_empty() {
                return Err(shape(format!(
                    "a {op} node has BufId, Size and Type, not {}",
                    extra.join(", ")
                )));
            }
            let (Some(buffer), Some(size), Some(tier)) = (node.buf_id, node.size, &node.tier)
            else {
                let missing: Vec<&str> = lifecycle_fields
                    .iter()
                    .filter(|f| !f.1)
                    .map(|f| f.0)
                    .collect();
                return Err(shape(format!(
                    "a {op} node needs BufId, Size and Type; {} missing",
                    missing.join(", ")
                )));
            };
            let Some(tier_id) = self.target.tier_named(tier) else {
                return Err(ContestError::UnknownTier {
                    loc: loc(),
                    node: at,
                    found: tier.clone(),
                    valid: self.target.tier_names(),
                });
            };
            return Ok(Node::Lifecycle {
                alloc: op == "ALLOC",
                buffer,
                size,
                tier: tier_id,
            });
        }
        let extra = present(lifecycle_fields);
        let missing: Vec<&str> = compute_fields
            .iter()
            .filter(|f| !f.1)
            .map(|f| f.0)
            .collect();
        match (extra.is_empty(), missing.is_empty()) {
            (true, true) => {}
            (false, true) => {
                return Err(shape(format!(
                    "an operation (Op \"{op}\") has Pipe, Cycles and Bufs, not {}; only ALLOC and FREE nodes name a single buffer",
                    extra.join(", ")
                )))
            }
            (_, false) => {
                return Err(shape(format!(
                    "a node is either ALLOC/FREE with BufId, Size and Type or an operation with Pipe, Cycles and Bufs; Op \"{op}\" lacks {}",
                    missing.join(", ")
                )))
            }
        }
        if !is_opcode(op) {
            return Err(ContestError::BadOpcode {
                loc: loc(),
                node: at,
                opcode: op.to_owned(),
            });
        }
        let (Some(pipe), Some(cycles), Some(bufs)) = (&node.pipe, node.cycles, &node.bufs) else {
            return Err(shape("an operation needs Pipe, Cycles and Bufs".to_owned()));
        };
        let Some(pipe_id) = self.target.pipe_named(pipe) else {
            return Err(ContestError::UnknownPipe {
                loc: loc(),
                node: at,
                found: pipe.clone(),
                valid: self.target.pipe_names(),
            });
        };
        Ok(Node::Compute {
            opcode: op,
            pipe: pipe_id,
            cycles,
            bufs,
        })
    }

    /// The op kind of node `index`, naming buffers by their ids in the module.
    fn op_kind(
        &self,
        index: usize,
        node: Option<&Node<'a>>,
        buffer_ids: &HashMap<u32, BufferId>,
    ) -> Result<OpKind, ContestError> {
        // `lifecycles` has checked every BufId named here; the error only keeps this total.
        let buffer = |b: u32| {
            buffer_ids
                .get(&b)
                .copied()
                .ok_or_else(|| ContestError::UndeclaredBuffer {
                    loc: self.node_loc(index),
                    node: self.node_ref(index),
                    buffer: b,
                })
        };
        Ok(match node {
            Some(&Node::Lifecycle {
                alloc: true,
                buffer: b,
                ..
            }) => OpKind::Alloc {
                buffer: buffer(b)?,
                offset: None,
            },
            Some(&Node::Lifecycle { buffer: b, .. }) => OpKind::Free { buffer: buffer(b)? },
            Some(Node::Compute {
                opcode,
                pipe,
                cycles,
                bufs,
            }) => OpKind::Compute {
                opcode: (*opcode).to_owned(),
                pipe: *pipe,
                cycles: *cycles,
                operands: bufs.iter().map(|&b| buffer(b)).collect::<Result<_, _>>()?,
            },
            None => {
                return Err(ContestError::NodeShape {
                    loc: None,
                    node: self.node_ref(index),
                    problem: "the node could not be read".to_owned(),
                })
            }
        })
    }

    /// Pairs ALLOC and FREE per BufId, in BufId order, and checks every use and size.
    fn lifecycles(&self, nodes: &[Node<'a>]) -> Result<BTreeMap<u32, Lifecycle>, ContestError> {
        let mut buffers: BTreeMap<u32, Lifecycle> = BTreeMap::new();
        for (index, node) in nodes.iter().enumerate() {
            let &Node::Lifecycle { alloc, buffer, .. } = node else {
                continue;
            };
            let life = buffers.entry(buffer).or_insert(Lifecycle {
                alloc: None,
                free: None,
                backed: false,
            });
            let (slot, what) = if alloc {
                (&mut life.alloc, "ALLOC")
            } else {
                (&mut life.free, "FREE")
            };
            if let Some(first) = *slot {
                return Err(ContestError::DuplicateLifecycle {
                    loc: self.node_loc(index),
                    node: self.node_ref(index),
                    what,
                    buffer,
                    first: self.node_ref(first),
                });
            }
            *slot = Some(index);
        }
        for (&buffer, life) in &buffers {
            let (a, f) = match (life.alloc, life.free) {
                (Some(a), Some(f)) => (a, f),
                (Some(a), None) => {
                    return Err(ContestError::AllocWithoutFree {
                        loc: self.node_loc(a),
                        node: self.node_ref(a),
                        buffer,
                    })
                }
                (None, Some(f)) => {
                    return Err(ContestError::FreeWithoutAlloc {
                        loc: self.node_loc(f),
                        node: self.node_ref(f),
                        buffer,
                    })
                }
                (None, None) => continue,
            };
            let (
                Some(Node::Lifecycle { size, tier, .. }),
                Some(Node::Lifecycle {
                    size: fsize,
                    tier: ftier,
                    ..
                }),
            ) = (nodes.get(a), nodes.get(f))
            else {
                continue;
            };
            let tier_name = |t: TierId| {
                self.target
                    .tiers
                    .get(t.index())
                    .map_or("?", |t| t.name.as_str())
                    .to_owned()
            };
            let mismatch = if size != fsize {
                Some(("Size", fsize.to_string(), size.to_string()))
            } else if tier != ftier {
                Some(("Type", tier_name(*ftier), tier_name(*tier)))
            } else {
                None
            };
            if let Some((field, found, expected)) = mismatch {
                return Err(ContestError::LifecycleMismatch {
                    loc: self.node_loc(f),
                    node: self.node_ref(f),
                    buffer,
                    alloc: self.node_ref(a),
                    field,
                    found,
                    expected,
                });
            }
            if *size == 0 {
                return Err(ContestError::EmptyBuffer {
                    loc: self.node_loc(a),
                    node: self.node_ref(a),
                    buffer,
                });
            }
            let capacity = self
                .target
                .tiers
                .get(tier.index())
                .map_or(0, |t| t.capacity);
            if *size > capacity {
                return Err(ContestError::BufferTooLarge {
                    loc: self.node_loc(a),
                    node: self.node_ref(a),
                    buffer,
                    size: *size,
                    tier: tier_name(*tier),
                    capacity,
                });
            }
        }
        for (index, node) in nodes.iter().enumerate() {
            let Node::Compute { opcode, bufs, .. } = node else {
                continue;
            };
            for &buffer in *bufs {
                match buffers.get_mut(&buffer) {
                    Some(life) if life.alloc.is_some() => life.backed |= *opcode == "COPY_IN",
                    _ => {
                        return Err(ContestError::UndeclaredBuffer {
                            loc: self.node_loc(index),
                            node: self.node_ref(index),
                            buffer,
                        })
                    }
                }
            }
        }
        Ok(buffers)
    }

    /// Each node's in-edges, by id, sorted by source id without duplicates.
    fn deps(&self) -> Result<Vec<Vec<Dep>>, ContestError> {
        let n = self.raw.nodes.len();
        let mut sources: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (index, edge) in self.raw.edges.iter().enumerate() {
            let &[src, dst] = edge.as_slice() else {
                return Err(ContestError::EdgeShape {
                    loc: self.edge_loc(index),
                    index,
                    len: edge.len(),
                });
            };
            let missing = [src, dst].into_iter().find(|&i| i as usize >= n);
            if let Some(missing) = missing {
                return Err(ContestError::EdgeEndpoint {
                    loc: self.edge_loc(index),
                    index,
                    src,
                    dst,
                    missing,
                });
            }
            if src == dst {
                return Err(ContestError::SelfEdge {
                    loc: self.edge_loc(index),
                    index,
                    node: src,
                });
            }
            if let Some(list) = sources.get_mut(dst as usize) {
                list.push(src);
            }
        }
        Ok(sources
            .into_iter()
            .map(|mut list| {
                list.sort_unstable();
                list.dedup();
                list.into_iter()
                    .map(|s| Dep {
                        op: OpId::new(s as usize),
                        kind: DepKind::Precedence,
                    })
                    .collect()
            })
            .collect())
    }

    /// σ: ids ascending when every edge goes forward, else Kahn's order with the smallest ready id.
    fn schedule(&self, deps: &[Vec<Dep>]) -> Result<Vec<OpId>, ContestError> {
        let n = deps.len();
        let forward = deps
            .iter()
            .enumerate()
            .all(|(dst, list)| list.iter().all(|d| d.op.index() < dst));
        if forward {
            return Ok((0..n).map(OpId::new).collect());
        }
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut indegree = vec![0usize; n];
        for (dst, list) in deps.iter().enumerate() {
            for d in list {
                if let Some(s) = succs.get_mut(d.op.index()) {
                    s.push(dst);
                }
            }
            if let Some(slot) = indegree.get_mut(dst) {
                *slot = list.len();
            }
        }
        let mut ready: BinaryHeap<Reverse<usize>> =
            (0..n).filter(|&v| indegree[v] == 0).map(Reverse).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse(v)) = ready.pop() {
            order.push(OpId::new(v));
            for &w in succs.get(v).map_or(&[][..], Vec::as_slice) {
                if let Some(slot) = indegree.get_mut(w) {
                    *slot -= 1;
                    if *slot == 0 {
                        ready.push(Reverse(w));
                    }
                }
            }
        }
        if order.len() == n {
            return Ok(order);
        }
        let cycle = find_cycle(n, |v| &deps[v]).unwrap_or_default();
        Err(ContestError::Cycle {
            cycle: cycle.into_iter().map(|v| v as u32).collect(),
        })
    }
}

/// Whether LIR can write `op` as an opcode: `[A-Z][A-Z0-9_]*`.
fn is_opcode(op: &str) -> bool {
    let mut chars = op.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Phase;

    const ALLOC0: &str = r#"{"Id": 0, "Op": "ALLOC", "BufId": 0, "Size": 256, "Type": "L1"}"#;
    const ALLOC1: &str = r#"{"Id": 1, "Op": "ALLOC", "BufId": 1, "Size": 128, "Type": "UB"}"#;
    const COPY: &str = r#"{"Id": 2, "Op": "COPY_IN", "Pipe": "MTE2", "Cycles": 10, "Bufs": [0]}"#;
    const VEC: &str = r#"{"Id": 3, "Op": "VADD", "Pipe": "VECTOR", "Cycles": 5, "Bufs": [1, 0]}"#;
    const FREE0: &str = r#"{"Id": 4, "Op": "FREE", "BufId": 0, "Size": 256, "Type": "L1"}"#;
    const FREE1: &str = r#"{"Id": 5, "Op": "FREE", "BufId": 1, "Size": 128, "Type": "UB"}"#;
    const EDGES: &str = "[[0, 2], [2, 3], [1, 3], [3, 4], [3, 5], [0, 4], [1, 5], [2, 3]]";

    fn json(nodes: &[&str], edges: &str) -> String {
        format!(
            "{{\"Nodes\": [\n{}\n], \"Edges\": {edges}}}",
            nodes.join(",\n")
        )
    }

    fn base(replace: Option<(&str, &str)>, edges: &str) -> String {
        let nodes = [ALLOC0, ALLOC1, COPY, VEC, FREE0, FREE1];
        let text = json(&nodes, edges);
        match replace {
            Some((from, to)) => text.replacen(from, to, 1),
            None => text,
        }
    }

    fn import(text: &str) -> Result<Module, ContestError> {
        import_graph(text, "t", &ImportOptions::default())
    }

    fn err(text: &str) -> ContestError {
        match import(text) {
            Ok(_) => panic!("expected an error for {text}"),
            Err(e) => e,
        }
    }

    fn names(m: &Module, deps: &[Dep]) -> Vec<u32> {
        deps.iter().map(|d| m.op(d.op).name).collect()
    }

    #[test]
    fn imports_a_small_graph() {
        let m = import(&base(None, EDGES)).unwrap();
        assert_eq!(m.name, "t");
        assert_eq!(m.phase, Phase::Parsed);
        let bufs: Vec<(u32, u64, bool)> = m
            .buffers
            .iter()
            .map(|b| (b.name, b.size, b.backed))
            .collect();
        assert_eq!(bufs, [(0, 256, true), (1, 128, false)]);
        let sigma: Vec<u32> = m.schedule.iter().map(|&id| m.op(id).name).collect();
        assert_eq!(sigma, [0, 1, 2, 3, 4, 5]);
        // In-edges sorted by source, the duplicate [2, 3] collapsed.
        assert_eq!(names(&m, &m.ops[3].deps), [1, 2]);
        assert_eq!(names(&m, &m.ops[4].deps), [0, 3]);
        assert!(m.ops[3].deps.iter().all(|d| d.kind == DepKind::Precedence));
        assert!(
            matches!(&m.ops[3].kind, OpKind::Compute { opcode, cycles: 5, operands, .. }
            if opcode == "VADD" && operands.len() == 2)
        );
        assert!(m.ops.iter().all(|op| op.loc.is_none()));
        assert_eq!(m.target, Target::contest());
    }

    #[test]
    fn nodes_may_come_in_any_order_and_sigma_falls_back_to_kahn() {
        // The arena follows the ids, not the array order.
        let nodes = [FREE1, VEC, ALLOC0, FREE0, COPY, ALLOC1];
        let m = import(&json(&nodes, EDGES)).unwrap();
        let names: Vec<u32> = m.ops.iter().map(|op| op.name).collect();
        assert_eq!(names, [0, 1, 2, 3, 4, 5]);
        assert!(matches!(&m.ops[2].kind, OpKind::Compute { opcode, .. } if opcode == "COPY_IN"));
        // The edge [2, 1] makes the id order non-topological: σ is Kahn's, smallest ready id first.
        let text = base(
            None,
            "[[0, 2], [2, 3], [3, 4], [3, 5], [0, 4], [1, 5], [2, 1], [1, 3]]",
        );
        let m = import(&text).unwrap();
        let sigma: Vec<u32> = m.schedule.iter().map(|&id| m.op(id).name).collect();
        assert_eq!(sigma, [0, 2, 1, 3, 4, 5]);
    }

    #[test]
    fn options_and_names() {
        let options = ImportOptions {
            capacities: vec![("UB".into(), 128), ("L1".into(), 300)],
            l0_exclusive: false,
        };
        let m = import_graph(&base(None, EDGES), "a b/c.json", &options).unwrap();
        assert_eq!(m.name, "a_b_c.json");
        assert!(!m.target.l0_exclusive);
        assert_eq!(m.target.tiers[0].capacity, 300);
        assert_eq!(m.target.tiers[1].capacity, 128);
        assert_eq!(sanitize(""), "_");
        let options = ImportOptions {
            capacities: vec![("L2".into(), 1)],
            ..ImportOptions::default()
        };
        let e = import_graph(&base(None, EDGES), "t", &options).unwrap_err();
        assert!(matches!(e, ContestError::UnknownCapacityTier { .. }));
        assert!(e
            .to_string()
            .contains("unknown tier \"L2\"; valid tiers: L1, UB"));
        let options = ImportOptions {
            capacities: vec![("UB".into(), 100)],
            ..ImportOptions::default()
        };
        let e = import_graph(&base(None, EDGES), "t", &options).unwrap_err();
        assert!(matches!(
            e,
            ContestError::BufferTooLarge { capacity: 100, .. }
        ));
        assert_eq!(
            e.to_string(),
            "node #1 (Id 1): buffer 1 has Size 128 but tier UB holds only 100 bytes"
        );
    }

    #[test]
    fn json_errors_are_located() {
        let text = base(None, EDGES);
        let e = err(&text[..text.len() / 2]);
        assert!(matches!(e, ContestError::Syntax { .. }), "{e}");
        assert!(e.to_string().starts_with("malformed JSON: EOF"), "{e}");
        let e = err(&base(Some(("\"Size\": 128", "\"Size\": \"128\"")), EDGES));
        assert!(
            matches!(e, ContestError::Shape { loc, .. } if loc.line == 3),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("invalid type: string \"128\", expected u64"),
            "{e}"
        );
        let e = err(&base(Some(("\"Op\": \"VADD\", ", "")), EDGES));
        assert!(e.to_string().contains("missing field `Op`"), "{e}");
        let e = err(&base(Some(("\"Cycles\": 5", "\"Cycle\": 5")), EDGES));
        assert!(e.to_string().contains("unknown field `Cycle`"), "{e}");
        let e = err(r#"{"Nodes": [], "Edges": [[0, -1]]}"#);
        assert_eq!(
            e.to_string(),
            "edge #0: -1 is not an integer in 0..=4294967295"
        );
        let e = err(&base(Some(("\"Size\": 128", "\"Size\": 1e30")), EDGES));
        assert!(
            matches!(e, ContestError::NumberOutOfRange { loc, .. } if loc.line == 3),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .ends_with("field `Size`: 1e30 is not an integer in 0..=18446744073709551615"),
            "{e}"
        );
        let e = err("{\"Nodes\": [{\"Id\": 0, \"Op\": \"é\u{1F600}\" ]}");
        assert!(
            matches!(e, ContestError::Syntax { loc, .. } if loc.col == 33),
            "{e:?}"
        );
    }

    #[test]
    fn node_shape_errors() {
        let e = err(&base(Some((", \"Cycles\": 5", "")), EDGES));
        assert!(matches!(
            e,
            ContestError::NodeShape {
                node: NodeRef { index: 3, id: 3 },
                ..
            }
        ));
        assert!(e.to_string().contains("Op \"VADD\" lacks Cycles"), "{e}");
        let e = err(&base(
            Some(("\"Type\": \"UB\"}", "\"Type\": \"UB\", \"Pipe\": \"MTE1\"}")),
            EDGES,
        ));
        assert!(
            e.to_string()
                .contains("a ALLOC node has BufId, Size and Type, not Pipe"),
            "{e}"
        );
        let e = err(&base(Some((", \"Size\": 128", "")), EDGES));
        assert!(
            e.to_string()
                .contains("needs BufId, Size and Type; Size missing"),
            "{e}"
        );
        let e = err(&base(
            Some(("\"Bufs\": [1, 0]}", "\"Bufs\": [1, 0], \"Size\": 3}")),
            EDGES,
        ));
        assert!(e.to_string().contains("not Size"), "{e}");
        let e = err(&base(Some(("VADD", "vadd")), EDGES));
        assert!(matches!(e, ContestError::BadOpcode { .. }));
        assert!(
            e.to_string().contains("Op \"vadd\" is not a valid opcode"),
            "{e}"
        );
    }

    #[test]
    fn unknown_names_are_located_at_the_node() {
        let e = err(&base(Some(("VECTOR", "MTE9")), EDGES));
        assert!(
            matches!(
                e,
                ContestError::UnknownPipe {
                    loc: Some(Loc { line: 5, col: 1 }),
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "node #3 (Id 3): unknown pipe \"MTE9\"; valid pipes: MTE1, MTE2, MTE3, FIXP, CUBE, VECTOR"
        );
        let e = err(&base(Some(("\"UB\"", "\"L2\"")), EDGES));
        assert!(matches!(e, ContestError::UnknownTier { .. }));
        assert!(
            e.to_string()
                .contains("unknown tier \"L2\"; valid tiers: L1, UB, L0A, L0B, L0C"),
            "{e}"
        );
    }

    #[test]
    fn id_errors() {
        let e = err(&base(Some(("\"Id\": 4", "\"Id\": 3")), EDGES));
        assert!(matches!(e, ContestError::DuplicateId { first: 3, .. }));
        assert!(
            e.to_string()
                .contains("node #4 (Id 3): Id 3 is already used by node #3"),
            "{e}"
        );
        let e = err(&base(Some(("\"Id\": 4", "\"Id\": 9")), EDGES));
        assert!(matches!(
            e,
            ContestError::IdGap {
                missing: 4,
                count: 6,
                ..
            }
        ));
        assert!(
            e.to_string()
                .contains("ids must be exactly 0..5 for 6 nodes, and Id 4 is missing"),
            "{e}"
        );
    }

    #[test]
    fn edge_errors() {
        let e = err(&base(None, "[[0, 2], [5, 9999]]"));
        assert!(matches!(
            e,
            ContestError::EdgeEndpoint {
                index: 1,
                missing: 9999,
                loc: Some(_),
                ..
            }
        ));
        assert_eq!(e.to_string(), "edge #1 [5, 9999]: node 9999 does not exist");
        let e = err(&base(None, "[[0, 2], [1, 2, 3]]"));
        assert!(matches!(e, ContestError::EdgeShape { len: 3, .. }));
        let e = err(&base(None, "[[0, 2], [3, 3]]"));
        assert!(matches!(e, ContestError::SelfEdge { node: 3, .. }));
        assert!(e.to_string().contains("self-edge"), "{e}");
        let e = err(&base(None, "[[0, 2], [2, 3], [3, 4], [4, 2]]"));
        assert!(matches!(&e, ContestError::Cycle { cycle } if cycle.len() == 4));
        assert_eq!(e.to_string(), "the edges form a cycle: 2 -> 3 -> 4 -> 2");
    }

    #[test]
    fn lifecycle_errors() {
        let e = err(&base(
            Some((
                "\"Op\": \"FREE\", \"BufId\": 1",
                "\"Op\": \"FREE\", \"BufId\": 0",
            )),
            EDGES,
        ));
        assert!(
            matches!(
                e,
                ContestError::DuplicateLifecycle {
                    what: "FREE",
                    buffer: 0,
                    ..
                }
            ),
            "{e}"
        );
        let e = err(&base(Some(("\"BufId\": 1", "\"BufId\": 0")), EDGES));
        assert!(
            matches!(e, ContestError::DuplicateLifecycle { what: "ALLOC", .. }),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("buffer 0 already has an ALLOC node (node #0 (Id 0))"),
            "{e}"
        );
        let e = err(&base(
            Some((
                "\"Op\": \"FREE\", \"BufId\": 1",
                "\"Op\": \"FREE\", \"BufId\": 7",
            )),
            EDGES,
        ));
        assert!(
            matches!(e, ContestError::AllocWithoutFree { buffer: 1, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("allocated but never freed"), "{e}");
        let e = err(&base(
            Some((
                "\"Op\": \"ALLOC\", \"BufId\": 1",
                "\"Op\": \"ALLOC\", \"BufId\": 7",
            )),
            EDGES,
        ));
        assert!(
            matches!(e, ContestError::FreeWithoutAlloc { buffer: 1, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("freed but never allocated"), "{e}");
        let e = err(&base(
            Some((
                r#""BufId": 1, "Size": 128, "Type": "UB"}"#,
                r#""BufId": 1, "Size": 128, "Type": "L1"}"#,
            )),
            EDGES,
        ));
        assert!(
            matches!(e, ContestError::LifecycleMismatch { field: "Type", .. }),
            "{e}"
        );
        assert!(
            e.to_string().contains(
                "FREE of buffer 1 has Type UB but its ALLOC, node #1 (Id 1), has Type L1"
            ),
            "{e}"
        );
        let e = err(&base(Some(("\"Size\": 128", "\"Size\": 64")), EDGES));
        assert!(
            matches!(e, ContestError::LifecycleMismatch { field: "Size", .. }),
            "{e}"
        );
        let text = base(None, EDGES).replace("\"Size\": 128", "\"Size\": 0");
        let e = err(&text);
        assert!(
            matches!(e, ContestError::EmptyBuffer { buffer: 1, .. }),
            "{e}"
        );
        let e = err(&base(Some(("[1, 0]", "[1, 0, 8]")), EDGES));
        assert!(
            matches!(e, ContestError::UndeclaredBuffer { buffer: 8, .. }),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("Bufs names buffer 8, which no ALLOC node declares"),
            "{e}"
        );
    }

    #[test]
    fn structural_violations_are_verified_and_located() {
        // Without the edge [1, 3] nothing orders the ALLOC of buffer 1 before its use; with the
        // edge [3, 1] the use must come first.
        let text = base(
            None,
            "[[0, 2], [2, 3], [3, 4], [3, 5], [0, 4], [1, 5], [3, 1]]",
        );
        let e = err(&text);
        let ContestError::Invalid { file: None, errors } = &e else {
            panic!("{e:?}")
        };
        assert!(
            e.to_string()
                .contains("uses buffer @b1 outside its lifetime"),
            "{e}"
        );
        assert_eq!(errors[0].loc, Some(Loc::new(5, 1)));
    }

    #[test]
    fn empty_graph_is_an_empty_module() {
        let m = import(r#"{"Nodes": [], "Edges": [], "Meta": {"x": 1}}"#).unwrap();
        assert!(m.ops.is_empty() && m.buffers.is_empty());
    }
}
