// Metaclass churn beside a hot loop (Groovy 2.4, `groovy --indy`), unrelated or same-class.
//
//     groovy -cp DIR --indy -Dgroovy.indy.logging=true churn.groovy Unrelated   # unrelated churn
//     groovy -cp DIR --indy -Dgroovy.indy.logging=true churn.groovy Hot         # same-class churn
//
// (-cp first: Debian's startGroovy reads -cp only as the first argument.) The loop calls two
// methods of Hot at two call sites; every PERIOD iterations after a warm-up it replaces the
// metaclass of the class named by the argument with a fresh ExpandoMetaClass that has one more
// method: Unrelated, a class the loop never calls, or Hot itself. Each replacement is one
// registry change event (the METACLASS_CHANGE line printed by MetaClassChangeLog) and Groovy 2.4
// answers it by invalidating its one global SwitchPoint (IndyInterface.invalidateSwitchPoints,
// logged as "invalidating switch point"), so the Hot sites select their method again whichever
// class changed: the log shows one new selection per Hot site after each change in both runs
// (through the new ExpandoMetaClass when Hot's own changed).
//
// Why a fresh ExpandoMetaClass per write and not `C.metaClass.m = {...}`: adding a method to an
// ExpandoMetaClass that is already registered fires no registry event after the first one
// (ExpandoMetaClass.performRegistryCallbacks calls registry.setMetaClass only while `modified`
// is false), so the later writes would not show up at all.
MetaClassChangeLog.install()

class Hot {
    int compute(int i) { i & 1 }
    int twice(int i) { (i & 3) * 2 }
}

class Unrelated {}

/** A fresh, unregistered ExpandoMetaClass for `c` with one method `dyn<k>`. */
MetaClass expandoWith(Class c, int k) {
    def emc = new ExpandoMetaClass(c, false, true)
    emc.initialize()
    emc.registerInstanceMethod("dyn" + k, { int x -> x + k })
    emc
}

final int N = 3000       // loop iterations
final int WARMUP = 500   // no writes before this
final int PERIOD = 250   // iterations between writes after the warm-up (10 writes)
final Map<String, Class> TARGETS = [Unrelated: Unrelated, Hot: Hot]
if (args.length != 1 || !TARGETS.containsKey(args[0])) {
    System.err.println("usage: churn.groovy Unrelated|Hot")
    System.exit(2)
}
Class target = TARGETS[args[0]]

Hot hot = new Hot()
long acc = 0
int writes = 0
for (int i = 0; i < N; i++) {
    if (i >= WARMUP && (i - WARMUP) % PERIOD == 0) {
        writes++
        GroovySystem.metaClassRegistry.setMetaClass(target, expandoWith(target, writes))
        // A Groovy object keeps the metaclass it was built with, so take a new receiver: it gets
        // the registry's current metaclass for Hot (the same in both runs).
        hot = new Hot()
    }
    acc += hot.compute(i)
    acc += hot.twice(i)
}
System.out.println("churn " + args[0] + ": acc=" + acc + " writes=" + writes)
