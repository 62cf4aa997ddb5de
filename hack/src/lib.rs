//! `lattice-workspace-hack`: no code. Its manifest pins the features of third-party crates that
//! different cargo commands would otherwise resolve differently (see `Cargo.toml`), so that every
//! workspace crate is built once per profile whatever the documented command.
