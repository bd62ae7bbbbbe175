// One call site, three receiver classes in turn (Groovy 2.4, `groovy --indy`): the big log.
//
// Groovy 2.4's indy call site holds one target guarded by the receiver's class and metaclass;
// when the receiver's class differs from the last one, the guard fails and the site selects its
// method again (Selector, logged in full with -Dgroovy.indy.logging=true). Cycling three classes
// through one site makes every iteration a new selection, so the log grows by about 3 KB per
// iteration: ITERATIONS = 30,000 gives the ~90 MB log used to measure readers on a big input.
// No metaclass changes. `scripts/capture-traces.sh --big` runs it; the log is not committed.
//
// Run: groovy -cp DIR --indy -Dgroovy.indy.logging=true three-receivers.groovy [ITERATIONS]
MetaClassChangeLog.install()

class Red { int m(int i) { i & 1 } }
class Green { int m(int i) { i & 3 } }
class Blue { int m(int i) { i & 7 } }

final int ITERATIONS = args.length > 0 ? Integer.parseInt(args[0]) : 30000
def receivers = [new Red(), new Green(), new Blue()]
long acc = 0
for (int i = 0; i < ITERATIONS; i++) {
    def r = receivers[i % 3]
    acc += r.m(i)
}
System.out.println("three-receivers: acc=" + acc + " iterations=" + ITERATIONS)
