//! The analysis manager: facts about a module (bottom levels, buffer first/last uses, liveness…)
//! computed on demand, cached, and dropped when a pass changes the module without preserving them.
//!
//! Invariants:
//! - a cached analysis always describes the module as it is now: after every pass the manager keeps
//!   only what the pass declared preserved (by default nothing, as in MLIR);
//! - an analysis is computed at most once between invalidations, and each computation is logged with
//!   its wall time so `--timing` can show it under the pass that asked for it.

use lattice_lir::Module;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// A fact computed from a module. It may ask the manager for other analyses while computing.
pub trait Analysis: Any {
    /// Short kebab-case name shown by `--timing`.
    const NAME: &'static str;
    /// Computes the analysis of `module`.
    fn compute(module: &Module, analyses: &mut AnalysisManager) -> Self;
}

/// Which analyses a pass leaves valid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Preserved {
    /// The pass may have changed anything: drop every cached analysis (the default).
    #[default]
    None,
    /// The pass kept these analyses valid (by type).
    Some(Vec<TypeId>),
    /// The pass did not change the module.
    All,
}

impl Preserved {
    /// Adds one analysis to the preserved set.
    pub fn add<A: Analysis>(&mut self) {
        let id = TypeId::of::<A>();
        match self {
            Preserved::All => {}
            Preserved::None => *self = Preserved::Some(vec![id]),
            Preserved::Some(ids) => {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
    }

    fn keeps(&self, id: TypeId) -> bool {
        match self {
            Preserved::All => true,
            Preserved::None => false,
            Preserved::Some(ids) => ids.contains(&id),
        }
    }
}

/// One computation of an analysis, for timing reports.
#[derive(Clone, Debug)]
pub struct AnalysisRun {
    /// The analysis's name.
    pub name: &'static str,
    /// Wall time of the computation (including analyses it asked for).
    pub wall: Duration,
}

/// The cache of analyses of one module.
#[derive(Default)]
pub struct AnalysisManager {
    cache: HashMap<TypeId, Rc<dyn Any>>,
    runs: Vec<AnalysisRun>,
}

impl AnalysisManager {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The analysis `A` of `module`, computed now unless cached.
    pub fn get<A: Analysis>(&mut self, module: &Module) -> Rc<A> {
        let id = TypeId::of::<A>();
        if let Some(cached) = self.cache.get(&id) {
            if let Ok(hit) = Rc::clone(cached).downcast::<A>() {
                return hit;
            }
        }
        let start = Instant::now();
        let value = Rc::new(A::compute(module, self));
        self.runs.push(AnalysisRun {
            name: A::NAME,
            wall: start.elapsed(),
        });
        tracing::debug!(analysis = A::NAME, "computed analysis");
        self.cache.insert(id, value.clone());
        value
    }

    /// Whether `A` is cached (a later [`get`](Self::get) would not recompute it).
    pub fn is_cached<A: Analysis>(&self) -> bool {
        self.cache.contains_key(&TypeId::of::<A>())
    }

    /// Drops every cached analysis that `preserved` does not keep.
    pub fn invalidate(&mut self, preserved: &Preserved) {
        self.cache.retain(|id, _| preserved.keeps(*id));
    }

    /// The computations since the last call, oldest first.
    pub fn take_runs(&mut self) -> Vec<AnalysisRun> {
        std::mem::take(&mut self.runs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::Target;
    use std::cell::Cell;

    thread_local! { static COMPUTED: Cell<u32> = const { Cell::new(0) }; }

    struct OpCount(usize);
    impl Analysis for OpCount {
        const NAME: &'static str = "op-count";
        fn compute(module: &Module, _: &mut AnalysisManager) -> Self {
            COMPUTED.with(|c| c.set(c.get() + 1));
            OpCount(module.ops.len())
        }
    }

    struct Doubled(usize);
    impl Analysis for Doubled {
        const NAME: &'static str = "doubled";
        fn compute(module: &Module, analyses: &mut AnalysisManager) -> Self {
            Doubled(analyses.get::<OpCount>(module).0 * 2)
        }
    }

    #[test]
    fn analyses_are_cached_until_invalidated() {
        let module = Module::new("m", Target::contest());
        let mut am = AnalysisManager::new();
        assert_eq!(am.get::<Doubled>(&module).0, 0);
        assert_eq!(am.get::<OpCount>(&module).0, 0);
        assert_eq!(COMPUTED.with(Cell::get), 1);
        let mut keep = Preserved::None;
        keep.add::<OpCount>();
        am.invalidate(&keep);
        assert!(am.is_cached::<OpCount>() && !am.is_cached::<Doubled>());
        am.invalidate(&Preserved::None);
        am.get::<OpCount>(&module);
        assert_eq!(COMPUTED.with(Cell::get), 2);
        let names: Vec<_> = am.take_runs().iter().map(|r| r.name).collect();
        assert_eq!(names, ["op-count", "doubled", "op-count"]);
    }
}
