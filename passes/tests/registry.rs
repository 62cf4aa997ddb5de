//! The registry's contract: unique kebab-case names, and for every pass a canonical pipeline text
//! that parses back to the same pipeline value (defaults and non-default values alike).

use lattice::{parse_pipeline, Pipeline};
use lattice_passes::REGISTRY;

#[test]
fn registry_is_well_formed() {
    REGISTRY.check(&["pass-pipeline", "verify-each"]).unwrap();
}

#[test]
fn every_pass_round_trips_through_its_canonical_text() {
    for pass in REGISTRY.passes() {
        let pipeline = parse_pipeline(pass.name, &REGISTRY).unwrap();
        let text = pipeline.to_string();
        assert_eq!(
            parse_pipeline(&text, &REGISTRY).unwrap(),
            pipeline,
            "{text}"
        );
        // Every pass builds from its defaults.
        let spec = &pipeline.passes[0];
        assert!((pass.build)(&spec.options).is_ok(), "{}", pass.name);
        assert_eq!(spec.options.len(), (pass.options)().len());
    }
}

#[test]
fn different_spellings_give_one_value_and_print_canonically() {
    let a = parse_pipeline(
        " module( test-analyses { preserve=0 } ,test-remark{warning message=\"a b\"}) ",
        &REGISTRY,
    )
    .unwrap();
    let b = parse_pipeline(
        "test-analyses{preserve=false},test-remark{message=\"a b\" warning=true op=\"\"}",
        &REGISTRY,
    )
    .unwrap();
    assert_eq!(a, b);
    let text = a.to_string();
    assert_eq!(
        text,
        "test-analyses{preserve=false},test-remark{op=\"\" message=\"a b\" warning=true}"
    );
    assert_eq!(parse_pipeline(&text, &REGISTRY).unwrap(), a);
    assert_eq!(parse_pipeline("", &REGISTRY).unwrap(), Pipeline::default());
    let quoted = parse_pipeline(r#"test-fail{message="say \"hi\", {ok}"}"#, &REGISTRY).unwrap();
    assert_eq!(
        parse_pipeline(&quoted.to_string(), &REGISTRY).unwrap(),
        quoted
    );
}
