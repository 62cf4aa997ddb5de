//! The workload shapes a user can ask for, by their command-line names.
//!
//! Names are kebab-case words (`matmul`, `attention`, `conv`, `random`, `resnet`, `heads-kv`,
//! `heads-q`, `matmul-rows`, `matmul-cols`); `Display` and
//! `FromStr` are inverse, so a CLI can take `--shape attention` and print the shape back. O(1).

use std::fmt;
use std::str::FromStr;

/// The structure of a generated workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Tiled matrix multiplication: A panels reused across output tiles, K-accumulation in L0C.
    Matmul,
    /// Flash attention: Q·Kᵀ, online softmax on the vector unit, P·V, per query block.
    Attention,
    /// Convolution blocks as implicit GEMM: weights via L0B, img2col patches via L0A, maps in L1.
    Conv,
    /// Unstructured steps over the same data path, operands drawn from the live buffers.
    Random,
    /// A deep residual conv network: small L1 tiles read by several CONVs through one L0 tier.
    Resnet,
    /// Attention heads of unequal query and key/value blocks, each tile loaded once, numbered
    /// with the key/value loop outside.
    HeadsKv,
    /// The same DAG as [`Shape::HeadsKv`] for a seed, numbered with the query loop outside.
    HeadsQ,
    /// Matmul output tiles whose A row and B column panels are each loaded once, numbered with
    /// the row loop outside.
    MatmulRows,
    /// The same DAG as [`Shape::MatmulRows`] for a seed, numbered with the column loop outside.
    MatmulCols,
}

impl Shape {
    /// Every shape, in the order `--help` lists them.
    pub const ALL: [Shape; 9] = [
        Shape::Matmul,
        Shape::Attention,
        Shape::Conv,
        Shape::Random,
        Shape::Resnet,
        Shape::HeadsKv,
        Shape::HeadsQ,
        Shape::MatmulRows,
        Shape::MatmulCols,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Matmul => "matmul",
            Shape::Attention => "attention",
            Shape::Conv => "conv",
            Shape::Random => "random",
            Shape::Resnet => "resnet",
            Shape::HeadsKv => "heads-kv",
            Shape::HeadsQ => "heads-q",
            Shape::MatmulRows => "matmul-rows",
            Shape::MatmulCols => "matmul-cols",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A shape name that is not one of [`Shape::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownShape(pub String);

impl fmt::Display for UnknownShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let valid: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
        write!(
            f,
            "unknown shape \"{}\"; valid shapes: {}",
            self.0,
            valid.join(", ")
        )
    }
}

impl std::error::Error for UnknownShape {}

impl FromStr for Shape {
    type Err = UnknownShape;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Shape::ALL
            .into_iter()
            .find(|shape| shape.name() == s)
            .ok_or_else(|| UnknownShape(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for shape in Shape::ALL {
            assert_eq!(shape.to_string().parse::<Shape>(), Ok(shape));
        }
        let e = "Matmul".parse::<Shape>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown shape \"Matmul\"; valid shapes: matmul, attention, conv, random, resnet, \
             heads-kv, heads-q, matmul-rows, matmul-cols"
        );
    }
}
