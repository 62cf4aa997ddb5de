// Under --mlir-pass-statistics the counters of lattice passes are reported (by lattice itself:
// Debian's MLIR is built without statistics, so MLIR's own report lists no pass).
// RUN: npu-opt --pass-pipeline='builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)' --mlir-pass-statistics \
// RUN:   %S/Inputs/matmul_tile.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK: ... lattice pass statistics report ...
// CHECK: lattice-mpas
// CHECK-NEXT: (S) {{[0-9]+}} logical-peak-before
// CHECK: lattice-dlr
// CHECK: (S) {{[0-9]+}} spills
// CHECK: lattice-cpe
// CHECK: (S) {{[0-9]+}} final-makespan
// Without the flag, no report.
// RUN: npu-opt --pass-pipeline='builtin.module(lattice-mpas)' %S/Inputs/matmul_tile.mlir -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: statistics report
