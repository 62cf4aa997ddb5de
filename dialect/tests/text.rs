//! Parser and printer properties on hand-written modules: printed text reads back to the same
//! text, every phase round-trips, and no input — however mangled — makes the parser panic.

use lattice_lir::diag::render_error;
use lattice_lir::{parse_module, print_module, verify_module, Phase};

const PLANNED: &str = "\
module @two_tiles phase(planned) {
  target {
    tiers L1 = 4096, UB = 1024, L0A = 256 l0, L0B = 256 l0, L0C = 512 l0
    pipes MTE1, MTE2, MTE3, FIXP, CUBE, VECTOR
    spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size
    l0_exclusive = true
  }
  buffer @b0 : L1[1024] backed
  buffer @b1 : UB[512]
  buffer @b2 : UB[768]
  %0 = alloc @b0 at 0
  %1 = COPY_IN MTE2 2198 (@b0) after(%0)
  %2 = alloc @b1 at 0
  %3 = VEC_ADD VECTOR 300 (@b1, @b0) after(%1, %2)
  %9 = spill_out @b1 MTE3 1174 after(%3 spill, %2 spill)
  %4 = alloc @b2 at 0 after(%9 reuse)
  %5 = VEC_MUL VECTOR 300 (@b2, @b0) after(%1, %4)
  %6 = free @b2 after(%5)
  %10 = spill_in @b1 at 256 MTE2 1174 after(%9 spill, %6 reuse)
  %7 = COPY_OUT MTE3 1174 (@b1) after(%3, %10 spill)
  %8 = free @b1 after(%7, %10 spill)
  %11 = free @b0 after(%5)
}
";

#[test]
fn planned_module_with_spills_round_trips() {
    let module = parse_module(PLANNED).expect("parses");
    assert_eq!(module.phase, Phase::Planned);
    verify_module(&module).expect("well formed");
    assert_eq!(print_module(&module), PLANNED);
}

#[test]
fn every_phase_round_trips() {
    let parsed = parse_module(&PLANNED.replace("phase(planned)", "phase(refined)")).unwrap();
    assert_eq!(parsed.phase, Phase::Refined);
    for phase in Phase::ALL {
        let text = PLANNED.replace("phase(planned)", &format!("phase({phase})"));
        let module = parse_module(&text).unwrap();
        assert_eq!(module.phase, phase);
        assert_eq!(print_module(&module), text);
    }
}

#[test]
fn structural_verifier_rejects_plans_before_planning() {
    let module = parse_module(&PLANNED.replace("phase(planned)", "phase(scheduled)")).unwrap();
    let errors = verify_module(&module).unwrap_err();
    assert!(errors.iter().any(|e| e
        .to_string()
        .contains("offset is not allowed in phase `scheduled`")));
    assert!(errors
        .iter()
        .any(|e| e.to_string().contains("spill op is not allowed")));
}

#[test]
fn truncated_and_mangled_text_never_panics() {
    let bytes: Vec<char> = PLANNED.chars().collect();
    for cut in 0..bytes.len() {
        let prefix: String = bytes[..cut].iter().collect();
        if let Err(e) = parse_module(&prefix) {
            let rendered = render_error("t.lir", Some(&prefix), &e);
            assert!(rendered.starts_with("t.lir:"), "{rendered}");
        }
    }
    // Replace every character in turn by a few troublemakers.
    for i in (0..bytes.len()).step_by(3) {
        for junk in ['%', '@', '9', '}', 'é', '\n'] {
            let mut text = bytes.clone();
            text[i] = junk;
            let text: String = text.into_iter().collect();
            if let Ok(module) = parse_module(&text) {
                let _ = verify_module(&module);
                let _ = print_module(&module);
            }
        }
    }
}

#[test]
fn syntax_errors_say_what_was_expected_in_words() {
    let text = PLANNED.replace("%3 = VEC_ADD VECTOR 300", "%3 = VEC_ADD VECTOR (");
    let err = parse_module(&text).unwrap_err();
    let rendered = render_error("x.lir", Some(&text), &err);
    assert!(rendered.starts_with("x.lir:14:"), "{rendered}");
    assert!(rendered.contains("expected a number"), "{rendered}");
    assert!(rendered.contains("^"), "{rendered}");
}

#[test]
fn numbers_too_large_are_errors() {
    let text = PLANNED.replace("UB[512]", "UB[99999999999999999999999]");
    let err = parse_module(&text).unwrap_err();
    assert!(err.to_string().contains("too large"), "{err}");
}
