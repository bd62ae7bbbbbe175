//! Which class-hierarchy assumptions of compiled code a class load breaks, as HotSpot decides it
//! (the truth a unit replay scores the policies against; what each policy retires is
//! [`crate::policy::load_retires`]).
//!
//! Read in openjdk/jdk17u-dev commit `5b1eb060`, src/hotspot/share/code/codeCache.cpp:
//! `CodeCache::flush_dependents_on` makes a `NewKlassDepChange` for a loaded class, and
//! `CodeCache::mark_for_deoptimization(KlassDepChange&)` asks each context of the change
//! (`DepChange::ContextStream`: the new class, its superclasses, its transitive interfaces) to
//! `mark_dependent_nmethods`: only code registered on a supertype of the new class is checked.
//! Each of its dependencies is then checked against the change (src/hotspot/share/code/
//! dependencies.cpp, openjdk/jdk commit `0221e67f`: `DepStream::check_klass_dependency`, with
//! `KlassDepChange::involves_context` = the new class is a subtype of the context):
//! - `abstract_with_unique_concrete_subtype ctxk x`: `ClassHierarchyWalker::find_witness_subtype`
//!   with `x` as participant: a new concrete class breaks it unless it is a subtype of `x`
//!   ("CX > CC > C' is OK, even if C' is new");
//! - `abstract_with_no_concrete_subtype`, `concrete_with_no_concrete_subtype`: any new concrete
//!   subtype; `leaf_type`: any new subtype (`check_leaf_type`);
//! - `unique_concrete_method[_2|_4] ctxk m`: `find_witness_definer`: a new subtype declaring a
//!   concrete method of `m`'s name ("CX.m > CC.m > C'.m is not OK");
//! - `unique_implementor ctxk x`: a new class implementing the interface that is not `x`'s
//!   subclass (`InstanceKlass::add_implementor` skips subclasses of an implementor);
//! - `no_finalizable_subclasses`: a new subtype with a finalizer (`check_has_no_finalizable_subclasses`);
//! - `call_site_target_value`, `evol_method`: not changed by a class load.
//!
//! A type not listed is taken as broken by any new subtype of its context (the most it could
//! be). Not modelled: `find_witness_in`'s bail-out for an interface context with more than one
//! implementor (it then names the context as witness); methods are matched by name only (a
//! `<dependency>` in the compile log names its method by id, whose element carries no
//! descriptor).

use super::classes::{ClassKind, Tree};
use super::Dependency;
use crate::policy::LoadReach;

/// Where `ctxk` stands to the newly loaded class `loaded`.
pub(super) fn reach(tree: &Tree<'_>, ctxk: &str, loaded: &str) -> LoadReach {
    if ctxk == loaded || tree.direct_supers(loaded).contains(&ctxk) {
        LoadReach::Direct
    } else if tree.supers(loaded).contains(&ctxk) {
        LoadReach::Ancestor
    } else {
        LoadReach::Unrelated
    }
}

/// The method name of a dependency argument (`Holder::name`, as the reader resolves a
/// `<method>` id).
fn method_name(arg: &str) -> &str {
    arg.rsplit("::").next().unwrap_or(arg)
}

/// Does loading `loaded` break `d`?
pub(super) fn breaks(tree: &Tree<'_>, d: &Dependency, loaded: &str) -> bool {
    if !tree.is_subtype(loaded, &d.ctxk) {
        return false;
    }
    let Some(w) = tree.get(loaded) else { return false };
    let concrete = w.kind == ClassKind::Concrete;
    let under_any = |xs: &[String]| xs.iter().any(|x| tree.is_subtype(loaded, x));
    match d.kind.as_str() {
        "abstract_with_unique_concrete_subtype" | "abstract_with_exclusive_concrete_subtypes_2" => concrete && !under_any(&d.x),
        "abstract_with_no_concrete_subtype" | "concrete_with_no_concrete_subtype" => concrete,
        "leaf_type" => loaded != d.ctxk,
        "unique_concrete_method" | "unique_concrete_method_2" | "unique_concrete_method_4" | "exclusive_concrete_methods_2" => {
            d.x.first().is_some_and(|m| w.declares(method_name(m)))
        }
        "unique_implementor" => w.kind != ClassKind::Interface && !under_any(&d.x[..d.x.len().min(1)]),
        "no_finalizable_subclasses" => w.finalizer,
        "call_site_target_value" | "evol_method" => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::classes::parse_classes;

    fn dep(kind: &str, ctxk: &str, x: &[&str]) -> Dependency {
        Dependency { kind: kind.into(), ctxk: ctxk.into(), x: x.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn a_new_subclass_breaks_only_the_assumptions_it_falsifies() {
        let classes = parse_classes(
            "class Object\nclass Shape extends Object abstract methods name()S\nclass Poly extends Shape abstract\nclass Square extends Poly methods name()S\n\
             class Tri extends Poly methods area()D\nclass Sub extends Square\nclass Fuel extends Object abstract\nclass Fin extends Shape abstract finalizer\n",
        )
        .unwrap();
        let tree = Tree::new(&classes);
        assert_eq!(
            [reach(&tree, "Poly", "Tri"), reach(&tree, "Shape", "Tri"), reach(&tree, "Fuel", "Tri")],
            [LoadReach::Direct, LoadReach::Ancestor, LoadReach::Unrelated]
        );
        let unique = |ctxk| dep("abstract_with_unique_concrete_subtype", ctxk, &["Square"]);
        assert!(breaks(&tree, &unique("Shape"), "Tri"), "a second concrete Shape, two levels down");
        assert!(!breaks(&tree, &unique("Shape"), "Sub"), "a subclass of the unique subtype keeps it unique");
        assert!(!breaks(&tree, &unique("Fuel"), "Tri"), "another subtree");
        assert!(!breaks(&tree, &unique("Shape"), "Fin"), "an abstract class is no concrete subtype");
        assert!(breaks(&tree, &dep("unique_concrete_method_4", "Shape", &["Shape::area", "Shape", "Shape::area"]), "Tri"));
        assert!(!breaks(&tree, &dep("unique_concrete_method_4", "Shape", &["Shape::name"]), "Tri"), "Tri does not override name");
        assert!(breaks(&tree, &dep("no_finalizable_subclasses", "Object", &[]), "Fin"));
        assert!(!breaks(&tree, &dep("no_finalizable_subclasses", "Object", &[]), "Tri"));
        assert!(breaks(&tree, &dep("leaf_type", "Square", &[]), "Sub"));
        assert!(!breaks(&tree, &dep("call_site_target_value", "Shape", &[]), "Tri"));
    }
}
