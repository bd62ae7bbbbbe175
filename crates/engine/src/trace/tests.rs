//! Reader behaviour on small hand-made inputs: chunking, limits, bad lines. The committed real
//! samples are checked in tests/trace_samples.rs.

use super::*;

/// A V8 log in the shapes Node 20 writes (lines taken from a real log, addresses shortened):
/// `hot` optimized, a prototype write to `Shape.prototype` that deoptimizes it, then an IC whose
/// handler was found stale.
const V8: &str = "v8-version,11,3,244,8,-node.38,0
code-creation,JS,10,100,0x1000,133,hot /p.js:3:13,0x50,~
map-details,110,0x2000,0x2000: [Map] in OldSpace\\n - type: JS_OBJECT_TYPE\\n - prototype_map\\n - constructor: 0x3a <JSFunction Shape (sfi = 0x2a)>\\n
LoadIC,0x1010,120,3,61,0,1,0x3000,area,,
code-creation,JS,13,130,0x7000,832,hot /p.js:3:13,0x50,*
code-deopt,140,896,0x7000,-1,158,dependency-change,</p.js:3:13>,code dependencies
map-create,141,0x2100
map,ReplaceDescriptors,142,0x2000,0x2100,0x1020,7,27,CopyAddDescriptor,perimeter
StoreIC,0x1020,143,7,27,0,1,0x2000,perimeter,,
LoadIC,0x1010,150,3,61,^,P,0x3000,area,,
LoadIC,0x1010,151,3,61,^,P,0x3001,area,,
";

fn read_str(s: &str) -> Trace {
    read(s.as_bytes(), Limits::default(), None)
}

#[test]
fn v8_prototype_write_gets_its_dependency_change_deopt_exactly_and_the_stale_ic_by_order() {
    let t = read_str(V8);
    assert_eq!(t.format, Some(LogFormat::V8));
    assert_eq!(t.version.as_deref(), Some("V8 11.3.244.8-node.38"));
    assert_eq!(t.not_understood, 0, "{:?}", t.first_not_understood);
    assert_eq!(t.mutations.len(), 1);
    let m = &t.mutations[0];
    assert_eq!((m.kind, m.class.as_str(), m.member.as_deref()), (MutationKind::PrototypeWrite, "Shape", Some("perimeter")));
    assert_eq!(m.at.line, 8);
    let deopt = t.invalidations.iter().find(|i| matches!(&i.kind, InvalidationKind::Deopt { kind, .. } if kind == "dependency-change")).unwrap();
    assert_eq!(deopt.cause, Some(Cause { mutation: 0, attribution: Attribution::Exact }));
    assert_eq!(t.units[deopt.unit.unwrap() as usize].tier, "*");
    let ics: Vec<&Invalidation> = t.invalidations.iter().filter(|i| matches!(i.kind, InvalidationKind::IcChange { .. })).collect();
    assert_eq!(ics.len(), 2, "the first link (0 -> 1) is not an invalidation");
    assert_eq!(ics[0].cause, Some(Cause { mutation: 0, attribution: Attribution::ByOrder }));
    assert_eq!(ics[1].cause, None, "a site is attributed once per mutation");
    let site = &t.sites[ics[0].site.unwrap() as usize];
    assert_eq!(site.key, SiteKey::Source { file: "/p.js".into(), line: 3, col: 61 });
    assert_eq!(site.function.as_deref(), Some("hot"));
    let r = &blast_radii(&t)[0];
    assert_eq!((r.sites.len(), r.units.len(), r.exact, r.by_order), (1, 1, 1, 1));
}

#[test]
fn every_chunking_gives_the_same_trace() {
    let whole = read_str(V8);
    for size in [1, 2, 3, 7, 64] {
        let mut r = TraceReader::new(Limits::default());
        for c in V8.as_bytes().chunks(size) {
            r.feed(c);
        }
        let t = r.finish();
        assert_eq!((t.lines, t.events(), t.not_understood), (whole.lines, whole.events(), whole.not_understood), "chunks of {size}");
        assert_eq!(t.invalidations.iter().map(|i| i.cause).collect::<Vec<_>>(), whole.invalidations.iter().map(|i| i.cause).collect::<Vec<_>>());
    }
}

#[test]
fn a_log_cut_mid_line_keeps_every_complete_event() {
    let cut = V8.len() - 10;
    let t = read(&V8.as_bytes()[..cut], Limits::default(), None);
    let whole = read_str(V8);
    assert_eq!(t.mutations.len(), 1);
    assert_eq!(t.invalidations.len(), whole.invalidations.len() - 1, "only the cut line is lost");
    assert_eq!(t.not_understood, 1);
    assert_eq!(t.first_not_understood[0].line, whole.lines);
}

#[test]
fn unknown_lines_are_counted_and_the_first_kept_with_their_line() {
    let log = format!("{V8}frobnicate,1,2\ncode-deopt,notanumber\n\u{1}\n");
    let limits = Limits { keep_unknown: 2, ..Limits::default() };
    let t = read(log.as_bytes(), limits, None);
    assert_eq!(t.not_understood, 3);
    assert_eq!(t.first_not_understood.len(), 2);
    assert_eq!(t.first_not_understood[0], Unknown { line: 12, why: Why::NotUnderstood, text: "frobnicate,1,2".into() });
    assert_eq!(t.first_not_understood[1].line, 13);
    assert_eq!(t.mutations.len(), 1, "the events before and after are kept");
    let bad = read(b"\xff\xfe\nv8-version,1,2,3,4,,0\n", Limits::default(), None);
    assert_eq!(bad.first_not_understood[0].why, Why::NotUtf8);
    assert_eq!(bad.format, Some(LogFormat::V8));
}

#[test]
fn lines_before_the_format_is_known_are_not_understood_and_headers_are_kept() {
    let t = read_str("# runtime: node v20\nhello\nv8-version,11,3,244,8,,0\n");
    assert_eq!(t.header, ["runtime: node v20"]);
    assert_eq!(t.first_not_understood[0].why, Why::NoFormatYet);
    assert_eq!(t.format, Some(LogFormat::V8));
    assert_eq!(read_str("just text\n").format, None);
}

#[test]
fn a_forced_format_reads_without_detection() {
    let t = read(b"INFO: --------\n\tinvocation of method 'f'\n\tsender: class S\nINFO: call site target set\n", Limits::default(), Some(LogFormat::Groovy));
    assert_eq!(t.format, Some(LogFormat::Groovy));
    assert_eq!(t.sites.len(), 1);
    assert_eq!(t.sites[0].key, SiteKey::Sender { sender: "S".into(), method: "f".into() });
}

#[test]
fn a_line_over_the_limit_is_counted_and_skipped() {
    let long = format!("map-details,1,0x1,{}\n", "x".repeat(5000));
    let log = format!("v8-version,11,3,244,8,,0\n{long}code-creation,JS,10,100,0x1000,13,f /q.js:1:1,0x50,~\n");
    let t = read(log.as_bytes(), Limits { max_line: 1000, ..Limits::default() }, None);
    assert_eq!(t.first_not_understood[0].why, Why::TooLong(long.len() as u64 - 1));
    assert_eq!(t.first_not_understood[0].line, 2);
    assert_eq!(t.units.len(), 1, "the line after is read");
}

#[test]
fn the_caps_stop_reading_and_keep_what_was_read() {
    let limits = Limits { max_events: 2, ..Limits::default() };
    let t = read_str_with(V8, limits);
    assert_eq!(t.events(), 2);
    assert!(matches!(t.stopped, Some(TraceError::EventCap { cap: 2, line: 5 })), "{:?}", t.stopped);
    let limits = Limits { max_bytes: 40, ..Limits::default() };
    let mut r = TraceReader::new(limits);
    assert_eq!(r.check_size(41), Err(TraceError::TooBig { size: 41, cap: 40 }));
    let p = r.feed(V8.as_bytes());
    assert_eq!(p.bytes, 40);
    assert!(matches!(p.stopped, Some(TraceError::ByteCap { cap: 40, line: 2 })), "{:?}", p.stopped);
    assert_eq!(r.feed(b"more").bytes, 40, "nothing is read after a cap");
    let t = r.finish();
    assert_eq!(t.version.as_deref(), Some("V8 11.3.244.8-node.38"), "the complete line before the cap is read");
    assert_eq!((t.lines, t.not_understood), (1, 0), "the line the cap cut is not read");
    assert!(matches!(read(V8.as_bytes(), limits, None).stopped, Some(TraceError::TooBig { .. })));
}

fn read_str_with(s: &str, limits: Limits) -> Trace {
    let mut r = TraceReader::new(limits);
    r.feed(s.as_bytes());
    r.finish()
}

/// HotSpot: the failures name the witness; units compiled on the failed assumption are made
/// not entrant exactly; without the compilation log, the adjacent one is attributed by order.
const HOTSPOT: &str = "<?xml version='1.0' encoding='UTF-8'?>
<hotspot_log version='160 1' process='1' time_ms='1'>
<vm_version>
<release>
17.0.15+6
</release>
</vm_version>
<tty>
<nmethod compile_id='12' compiler='c2' level='4' method='Prog sum ([LShape;)I' stamp='0.020'/>
<nmethod compile_id='13' compiler='c1' level='3' method='Prog other ()V' stamp='0.021'/>
<dependency_failed type='abstract_with_unique_concrete_subtype' ctxk='Shape' x='Square' witness='Circle' stamp='0.049'/>
<make_not_entrant thread='1' compile_id='12' compiler='c2' level='4' stamp='0.049'/>
<make_not_entrant thread='1' compile_id='13' compiler='c1' level='3' stamp='0.049'/>
<uncommon_trap thread='1' reason='unstable_if' action='reinterpret' compile_id='12' stamp='0.050'>
</uncommon_trap>
</tty>
<compilation_log thread='2'>
<task compile_id='12' method='Prog sum ([LShape;)I'>
<klass id='1250' name='Shape' flags='1024'/>
<klass id='1254' name='Square' flags='0'/>
<dependency type='abstract_with_unique_concrete_subtype' ctxk='1250' x='1254'/>
</task>
</compilation_log>
";

#[test]
fn hotspot_witness_is_the_class_load_and_dependent_code_is_made_not_entrant_exactly() {
    let t = read_str(HOTSPOT);
    assert_eq!(t.format, Some(LogFormat::HotSpot));
    assert_eq!(t.version.as_deref(), Some("JDK 17.0.15+6 (LogCompilation 160 1)"));
    assert_eq!(t.not_understood, 0, "{:?}", t.first_not_understood);
    assert_eq!(t.mutations.len(), 1);
    assert_eq!((t.mutations[0].kind, t.mutations[0].class.as_str()), (MutationKind::ClassLoad, "Circle"));
    assert_eq!(t.mutations[0].at.clock_us, Some(49_000));
    assert_eq!(t.units[0].deps, [Dependency { kind: "abstract_with_unique_concrete_subtype".into(), ctxk: "Shape".into(), x: vec!["Square".into()] }]);
    let ne: Vec<&Invalidation> = t.invalidations.iter().filter(|i| i.kind == InvalidationKind::NotEntrant).collect();
    assert_eq!(ne[0].cause, Some(Cause { mutation: 0, attribution: Attribution::Exact }), "compile 12 recorded the failed dependency");
    assert_eq!(ne[1].cause, Some(Cause { mutation: 0, attribution: Attribution::ByOrder }), "compile 13 did not, but followed the failure");
    let trap = t.invalidations.last().unwrap();
    assert_eq!(trap.cause, None);
    assert!(matches!(&trap.kind, InvalidationKind::Deopt { kind, reason } if kind == "uncommon-trap" && reason == "unstable_if (reinterpret)"));
    // Cut before the compilation log (a crashed run): both not-entrants by order.
    let cut = &HOTSPOT[..HOTSPOT.find("<compilation_log").unwrap()];
    let t = read_str(cut);
    assert!(t.invalidations.iter().filter(|i| i.kind == InvalidationKind::NotEntrant).all(|i| i.cause.map(|c| c.attribution) == Some(Attribution::ByOrder)));
}

#[test]
fn hotspot_internal_class_names_match_the_tasks_and_fragments_are_free_text() {
    let log = "<?xml version='1.0'?>
<nmethod compile_id='7' compiler='c1' level='3' method='a.B f ()V' stamp='0.1'/>
<dependency_failed type='unique_concrete_method_4' ctxk='a/I' x='a.B f ()V' witness='a/I' stamp='0.2'/>
<dependency_failed type='call_site_target_value' ctxk='java/lang/invoke/MutableCallSite' witness='java/lang/invoke/MutableCallSite' stamp='0.3'/>
<fragment>
<![CDATA[
<task compile_id='9' method='x'
free text
]]>
</fragment>
<compilation_log thread='2'>
<task compile_id='7' method='a.B f ()V'>
<klass id='1' name='a.I' flags='1'/>
<dependency type='unique_concrete_method_4' ctxk='1' x='2'/>
</task>
</compilation_log>
<make_not_entrant thread='1' compile_id='7' compiler='c1' level='3' stamp='0.4'/>
";
    let t = read_str(log);
    assert_eq!(t.not_understood, 0, "{:?}", t.first_not_understood);
    assert_eq!((t.mutations[0].kind, t.mutations[0].class.as_str()), (MutationKind::ClassLoad, "a.I"));
    assert_eq!(t.mutations[1].kind, MutationKind::CallSiteTarget);
    let ne = t.invalidations.iter().find(|i| i.kind == InvalidationKind::NotEntrant).unwrap();
    assert_eq!(ne.cause, Some(Cause { mutation: 0, attribution: Attribution::Exact }));
}

#[test]
fn hotspot_broken_tags_are_not_understood() {
    let t = read_str("<?xml version='1.0'?>\n<nmethod compile_id='1' method='A f ()V'\nfree text\n<make_not_entrant compile_id='x'/>\n");
    assert_eq!(t.not_understood, 3);
    assert!(t.units.is_empty());
}

/// Groovy: a site's first selection after a metaclass change is attributed to it by order.
const GROOVY: &str = "Dec 06, 2026 6:22:03 AM org.codehaus.groovy.vmplugin.v7.Selector$MethodSelector <init>
INFO: ----------------------------------------------------
\t\tinvocation of method 'f'
\t\tsender: class Main
INFO: meta class is groovy.lang.MetaClassImpl@4b013c76[class A]
INFO: selection base set to class A
INFO: call site target set, preparing outside invocation
METACLASS_CHANGE seq=1 nanos=5000 class=B old=null new=groovy.lang.ExpandoMetaClass@1 instance=false
INFO: ----------------------------------------------------
\t\tinvocation of method 'f'
\t\tsender: class Main
INFO: meta class is groovy.lang.MetaClassImpl@4b013c76[class A]
INFO: call site target set, preparing outside invocation
INFO: ----------------------------------------------------
\t\tinvocation of method 'f'
\t\tsender: class Main
INFO: selection base set to class A2
INFO: call site target set, preparing outside invocation
";

#[test]
fn groovy_first_reselection_after_a_change_is_attributed_by_order() {
    let t = read_str(GROOVY);
    assert_eq!(t.format, Some(LogFormat::Groovy));
    assert_eq!(t.not_understood, 0, "{:?}", t.first_not_understood);
    assert_eq!(t.mutations.len(), 1);
    assert_eq!((t.mutations[0].class.as_str(), t.mutations[0].at.clock_us), ("B", Some(5)));
    assert_eq!(t.sites.len(), 1);
    assert_eq!(t.sites[0].selections, 3);
    assert_eq!(t.invalidations.len(), 2);
    assert_eq!(t.invalidations[0].cause, Some(Cause { mutation: 0, attribution: Attribution::ByOrder }));
    assert!(matches!(&t.invalidations[0].kind, InvalidationKind::Relink { receiver, metaclass } if receiver == "A" && metaclass == "MetaClassImpl"));
    assert_eq!(t.invalidations[1].cause, None, "a later receiver change is not the change's");
}

#[test]
fn garbage_never_panics_and_is_counted() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        let mut bytes = Vec::new();
        for _ in 0..300 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let pool = b",<>'=:\n\t ^01PXv8-version,code-creationINFO: -<nmethod>";
            bytes.push(pool[(seed % pool.len() as u64) as usize]);
        }
        for f in [None, Some(LogFormat::V8), Some(LogFormat::HotSpot), Some(LogFormat::Groovy)] {
            let t = read(&bytes, Limits::default(), f);
            assert!(t.lines >= t.ignored + t.not_understood);
        }
    }
}

/// V8 with map printouts (`map-details` written): the hierarchy comes from the prototype maps,
/// and a write to the parent's prototype relinking a child's site is replayed as hierarchy.
const V8_DETAILS: &str = "v8-version,11,3,244,8,-node.38,0
code-creation,JS,10,100,0x1000,100,f /p.js:1:1,0x50,~
map-details,101,0x2000,0x2000: [Map]\\n - prototype_map\\n - prototype: 0x9 <Object map = 0x8>\\n - constructor: 0x3 <JSFunction Shape (sfi = 0x2)>\\n
map-details,102,0x2100,0x2100: [Map]\\n - prototype_map\\n - prototype: 0x9 <Shape map = 0x2000>\\n - constructor: 0x4 <JSFunction Circle (sfi = 0x5)>\\n
map,InitialMap,103,0x000000000000,0x3000,0x1000,2,1,,Circle
map,InitialMap,104,0x000000000000,0x3100,0x1000,2,1,,Other
LoadIC,0x1010,110,3,5,0,1,0x3000,area,,
LoadIC,0x1020,111,4,5,0,1,0x3100,size,,
map,ReplaceDescriptors,120,0x2000,0x2200,0x1030,7,1,CopyAddDescriptor,extra
LoadIC,0x1010,130,3,5,^,1,0x3000,area,,
";

#[test]
fn v8_map_printouts_give_the_hierarchy_and_the_replay_uses_it() {
    let t = read_str(V8_DETAILS);
    assert_eq!(t.not_understood, 0, "{:?}", t.first_not_understood);
    assert_eq!(t.parents, [("Circle".to_string(), "Shape".to_string())]);
    assert_eq!((t.mutations[0].class.as_str(), t.mutations[0].member.as_deref()), ("Shape", Some("extra")));
    assert_eq!(t.sites[0].receivers, ["Circle"]);
    let r = replay(&t).unwrap();
    assert!(r.text.contains("class Circle extends Shape"), "{}", r.text);
    let m = &r.mutations[0];
    assert_eq!((m.linked, m.observed.len()), (2, 1));
    let predicted = |p: crate::Policy| m.predicted[r.policies.iter().position(|&x| x == p).unwrap()].len();
    assert_eq!((predicted(crate::Policy::Exact), predicted(crate::Policy::Hierarchy), predicted(crate::Policy::Global)), (0, 1, 2));
    let like = r.behaved_like();
    assert!(like.contains(&crate::Policy::Hierarchy) && !like.contains(&crate::Policy::Exact) && !like.contains(&crate::Policy::Global), "{like:?}");
}

#[test]
fn v8_script_source_lines_are_understood_and_change_nothing() {
    // A capture without --no-log-source-code holds each script's whole text, commas written
    // `\x2C` and newlines `\n` (the committed samples are captured with the flag).
    let with = V8.replacen("code-creation,JS,10", "script-source,81,/p.js,// a script\\x2C with a comma\\nclass Shape {}\ncode-creation,JS,10", 1);
    let (without, with) = (read_str(V8), read_str(&with));
    assert_eq!(with.not_understood, 0, "{:?}", with.first_not_understood);
    assert_eq!((with.ignored, with.events()), (without.ignored + 1, without.events()));
    assert_eq!(blast_radii(&with), blast_radii(&without));
}
