// Blast Radius sweeps for Groovy 2.4 with invokedynamic call sites (`groovy --indy`): the shapes
// the simulator's JIT tier layer must reproduce. On JDK 14+ this Groovy replaces its
// global SwitchPoint only at a class's first metaclass write (its Java 7 VM plugin cannot load),
// so its later writes invalidate nothing: docs/CALIBRATION.md, crates/engine/src/groovy24.rs.
//
//     groovy --indy probes/groovy/sweeps.groovy SWEEP [--reps N] [--warmup N] [--iterations N] [--times] [--starts]
//
// SWEEP is one of (param = what the sweep varies):
//   density   write Hot.dyn0 every `param` iterations (10 .. 100000), the loop calling Hot.compute
//   sites     `param` hot sites (1 .. 16) on as many classes, an unrelated write every 1000
//   burst     `param` writes to an unrelated class before each op, then a steady loop (0 .. 3000)
//   body      Hot.describe builds a string (a real body); param = write period (0 = no writes)
//   length    run length: the time of op `param` + 1 (0 .. 30) of a fresh loop, a write to Hot
//             every 1000, in a JVM whose runtime code is already warm (how long a new loop
//             method takes to climb HotSpot's tiers: see the `length` branch below)
//   poly      one site whose receiver cycles through `param` classes (1 .. 12), unrelated
//             write every 1000 (how 2.4 relinks a site whose receiver changes: docs/CALIBRATION.md)
//
// Prints one JSON document in the common probe schema (probes/README.md), one row per param.
// One JVM per sweep (`scripts/groovy-sweeps.sh` runs them all and adds machine facts); inside it,
// every param gets fresh classes and runs `warmup` untimed ops, then `reps` timed ops, in three
// passes (the spread of a loaded machine lands on every param, not on one).
//
// One op is one call of a compiled closure whose loop runs `iterations` iterations, as JMH's
// ScopedInvalidationBench op does: the closure's method is a compilation unit that HotSpot
// compiles by invocation count and by back-edges (OSR), and that a SwitchPoint invalidation
// deoptimizes.

import groovy.json.JsonOutput
import org.codehaus.groovy.control.CompilerConfiguration

INDY = new CompilerConfiguration()
INDY.optimizationOptions.indy = true
worldId = 0
LENGTHS = [0, 1, 3, 10, 30]

String sweep = args ? args[0] : 'density'
int argInt(String name, int dflt) {
    int k = args.findIndexOf { it == name }
    k >= 0 && k + 1 < args.size() ? args[k + 1] as int : dflt
}
int reps = argInt('--reps', 9)
int warmup = argInt('--warmup', 6)
N = argInt('--iterations', 100000)   // a binding variable: the methods below read it

// Compiles a world of fresh classes and returns the op (a closure running the loop once).
Closure build(String classes, String beforeLoop, String write, int period, List<String> calls, String setup) {
    worldId++
    String w = "W${worldId}_"
    String loopWrite = period > 0 ? "if (i % ${period} == 0) { ${write} }" : ''
    String src = """
        class W_Hot { int compute(int i) { i & 1 }
                      int describe(int i) { String s = "item-" + i + ":" + (i * 31); s.length() + s.hashCode() & 7 } }
        class W_Unrelated {}
        ${classes}
        ${setup}
        return { ->
            ${beforeLoop}
            long acc = 0
            for (int i = 0; i < ${N}; i++) {
                ${loopWrite}
                ${calls.collect { "acc += ${it}" }.join('\n                ')}
            }
            acc
        }
    """.replace('W_', w)
    new GroovyShell(INDY).evaluate(src) as Closure
}

String writeOn(String cls) { "W_${cls}.metaClass.dyn0 = { int x -> 0 }" }

List plan
switch (sweep) {
    case 'density':
        plan = [10, 100, 1000, 10000, 100000].collect { p -> [p, build('', '', writeOn('Hot'), p, ['o.compute(i)'], 'def o = new W_Hot()')] }
        break
    case 'sites':
        plan = [1, 2, 4, 8, 16].collect { k ->
            String classes = (0..<k).collect { j -> "class W_C${j} { int m(int i) { (i + ${j}) & 1 } }" }.join('\n')
            String objs = (0..<k).collect { j -> "def o${j} = new W_C${j}()" }.join('\n')
            // The same total calls per op whatever k: n / k iterations of k calls.
            [k, buildSites(classes, objs, k)]
        }
        break
    case 'burst':
        plan = [0, 10, 100, 1000, 3000].collect { b ->
            String burst = b ? "for (int k = 0; k < ${b}; k++) { W_Unrelated.metaClass.\"dyn\${k}\" = { int x -> 0 } }" : ''
            [b, build('', burst, '', 0, ['o.compute(i)'], 'def o = new W_Hot()')]
        }
        break
    case 'body':
        plan = [0, 1000].collect { p -> [p, build('', '', writeOn('Unrelated'), p, ['o.describe(i)'], 'def o = new W_Hot()')] }
        break
    case 'length':
        // Run length: one row per op index (param = the ops before it), each timed once in every
        // fresh world (below); `warmup` here warms the runtime, not the worlds.
        plan = LENGTHS.collect { w -> [w, null, w] }
        break
    case 'poly':
        plan = [1, 2, 4, 8, 12].collect { k ->
            String classes = (0..<k).collect { j -> "class W_R${j} { int m(int i) { (i + ${j}) & 1 } }" }.join('\n')
            String objs = "def rs = [${(0..<k).collect { j -> "new W_R${j}()" }.join(', ')}] as Object[]"
            [k, build(classes, '', writeOn('Unrelated'), 1000, ["rs[i % ${k}].m(i)"], objs)]
        }
        break
    default:
        System.err.println("unknown sweep `${sweep}`: density, sites, burst, body, poly or length")
        System.exit(2)
}

Closure buildSites(String classes, String objs, int k) {
    int saved = N
    N = N.intdiv(k)
    Closure op = build(classes, '', writeOn('Unrelated'), 1000.intdiv(k) ?: 1, (0..<k).collect { j -> "o${j}.m(i)".toString() }, objs)
    N = saved
    op
}

// Three passes; within a pass each param runs its warm-up and then its timed reps back to back.
final int ROUNDS = sweep == 'length' ? 0 : 3
List<List<Long>> times = plan.collect { [] }
if (sweep == 'length') {
    // The runtime's own code (Groovy's call path and metaclass write path, the JDK's method-handle
    // forms) warms up once per JVM and took seconds here; the length rows are about the loop's
    // method alone. So `warmup` ops of a world writing every 10 iterations first, untimed; then
    // `reps` fresh worlds (new classes, a new loop method and new call sites, which HotSpot
    // compiles from scratch), each run for 31 ops, timing ops 1, 2, 4, 11 and 31.
    // `--starts`: each world's ops also go to stderr as `start+ms` (start in JVM uptime, ms), to
    // line up with -XX:+LogCompilation stamps (scripts/length-compiles.sh).
    boolean starts = args.contains('--starts')
    def uptime = java.lang.management.ManagementFactory.getRuntimeMXBean()
    Closure warm = build('', '', writeOn('Hot'), 10, ['o.compute(i)'], 'def o = new W_Hot()')
    warmup.times { warm() }
    reps.times {
        Closure op = build('', '', writeOn('Hot'), 1000, ['o.compute(i)'], 'def o = new W_Hot()')
        long base = System.nanoTime()
        long up = uptime.getUptime()
        List line = []
        (0..LENGTHS.max()).each { n ->
            long t0 = System.nanoTime()
            op()
            long t = System.nanoTime() - t0
            int k = LENGTHS.indexOf(n)
            if (k >= 0) times[k] << t
            line << String.format('%.1f+%.2f', up + (t0 - base) / 1e6, t / 1e6)
        }
        if (starts) System.err.println('world ' + line.join(' '))
    }
}
ROUNDS.times { r ->
    int share = reps.intdiv(ROUNDS) + (r < reps % ROUNDS ? 1 : 0)
    plan.eachWithIndex { p, k ->
        Closure op = p[1]
        (p.size() > 2 ? p[2] : (r == 0 ? warmup : 1)).times { op() }
        share.times {
            long t0 = System.nanoTime()
            op()
            times[k] << (System.nanoTime() - t0)
        }
    }
}

double quantile(List<Long> values, double q) {
    double k = (values.size() - 1) * q
    int lo = (int) Math.floor(k)
    int hi = Math.min(lo + 1, values.size() - 1)
    values[lo] + (values[hi] - values[lo]) * (k - lo)
}

def rows = plan.withIndex().collect { p, k ->
    List<Long> t = times[k].sort()
    double median = quantile(t, 0.5)
    double iqr = median ? (quantile(t, 0.75) - quantile(t, 0.25)) / median : 0
    def row = [workload: sweep, param: p[0], iterations: N, reps: reps, warmup: p.size() > 2 ? p[2] : warmup,
               min_ns: t.first(), median_ns: median, max_ns: t.last(), iqr_rel: Math.round(iqr * 1e4) / 1e4, wide: iqr > 0.25]
    if (args.contains('--times')) row.times_ns = t   // every timed op, for pooling forks
    row
}
def doc = [
    schema : 'blast-radius-probe/1',
    runtime: 'groovy',
    version: "Groovy ${GroovySystem.version} (indy), JVM ${System.getProperty('java.vm.name')} ${System.getProperty('java.version')}".toString(),
    command: (['groovy', '--indy', 'probes/groovy/sweeps.groovy'] + (args as List)).join(' '),
    mode   : 'sweep',
    rows   : rows,
]
println JsonOutput.prettyPrint(JsonOutput.toJson(doc))
