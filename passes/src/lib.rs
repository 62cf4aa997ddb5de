//! The passes of lattice. Each pass is a thin wrapper over plain functions that tests can call
//! directly; the pass manager in the `lattice` crate runs them. The planning passes arrive with
//! their issues; this crate exists now so the dependency direction dialect ← core ← passes ← tools
//! is fixed from the start.
