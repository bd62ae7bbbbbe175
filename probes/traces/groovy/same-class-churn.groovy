// Same-class metaclass churn (Groovy 2.4, `groovy --indy`).
//
// The loop calls two methods of Hot at two call sites; every PERIOD iterations (after a warm-up)
// it replaces the metaclass of Hot itself, the class the loop calls, with a fresh
// ExpandoMetaClass that has one more method. Each replacement is one registry change event
// (the METACLASS_CHANGE line printed by MetaClassChangeLog) and Groovy 2.4 answers it by
// invalidating its one global SwitchPoint (IndyInterface.invalidateSwitchPoints, logged as
// "invalidating switch point"); the Hot sites select their method again, now through the new
// metaclass: the log shows one new selection per Hot site after each change, as in
// unrelated-churn.groovy, which is the point: Groovy 2.4 cannot tell the two apart.
//
// Why a fresh ExpandoMetaClass per write and not `Hot.metaClass.m = {...}`: adding a
// method to an ExpandoMetaClass that is already registered fires no registry event after the
// first one (ExpandoMetaClass.performRegistryCallbacks calls registry.setMetaClass only while
// `modified` is false), so the later writes would not show up at all.
//
// Run with probes/traces/groovy on the class path, before --indy (startGroovy only reads -cp
// as the first argument): groovy -cp DIR --indy -Dgroovy.indy.logging=true same-class-churn.groovy
MetaClassChangeLog.install()

class Hot {
    int compute(int i) { i & 1 }
    int twice(int i) { (i & 3) * 2 }
}

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

Hot hot = new Hot()
long acc = 0
int writes = 0
for (int i = 0; i < N; i++) {
    if (i >= WARMUP && (i - WARMUP) % PERIOD == 0) {
        writes++
        GroovySystem.metaClassRegistry.setMetaClass(Hot, expandoWith(Hot, writes))
        // A Groovy object keeps the metaclass it was built with, so take a new receiver: it gets
        // the registry's current metaclass for Hot (the same in both churn programs).
        hot = new Hot()
    }
    acc += hot.compute(i)
    acc += hot.twice(i)
}
System.out.println("same-class-churn: acc=" + acc + " writes=" + writes)
