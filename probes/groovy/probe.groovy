// Blast Radius probe for Groovy with invokedynamic call sites (Groovy 2.4, `groovy --indy`).
//
// Runs the probe workloads (probes/README.md) and prints one JSON document in the common probe
// schema; scripts/probe.sh runs it and adds the machine facts:
//
//     groovy --indy probes/groovy/probe.groovy [--quick]
//
// Every workload is the same loop, compiled from source with GroovyShell so each call is a real
// indy call site:
//
//     for (int i = 0; i < n; i++) {
//         if (i % period == 0) { <write> }     // nothing for the baseline
//         acc += <receiver>.<method>(i)
//     }
//
// A write adds a closure to a class's ExpandoMetaClass. Groovy 2.4's IndyInterface registers a
// MetaClassRegistryChangeEventListener whose updateConstantMetaClass calls the static
// invalidateSwitchPoints() (org/codehaus/groovy/vmplugin/v7/IndyInterface.java; checked with
// javap on groovy-2.4.21.jar), which replaces the one global SwitchPoint: every linked indy call
// site in the process falls back to method selection. GROOVY-12191 scopes this per class.

import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import org.codehaus.groovy.control.CompilerConfiguration

final int PERIOD = 1000   // iterations between writes, as in ScopedInvalidationBench
final int BURST = 50      // writes before the steady loop in `burst_then_steady`
final int ROUNDS = 3      // passes over the workloads (see `measure`)
final double LOW_WIDE = 0.1 // the fastest quarter of reps spread wider than this: the minimum is not readable
final List<Integer> DENSITIES = [10, 100, 1000, 10000]
final List<Integer> SITE_COUNTS = [1, 8, 64]

int worldId = 0
// `groovy --indy` compiles this script with invokedynamic, but a GroovyShell created here starts
// from the default configuration: ask for indy call sites in the generated loops too.
INDY = new CompilerConfiguration()
INDY.optimizationOptions.indy = true

// Fresh classes for each workload (new names), so writes cannot leak between workloads.
// `op(n, period, write, calls, extra)` compiles the loop; `C` names the world's classes.
def build = { int n, int period, String write, List<String> calls, String receivers, String setup ->
    worldId++
    String w = "W${worldId}_"
    String src = """
        class ${w}Hot { int compute(int i) { i & 1 } }
        class ${w}Unrelated {}
        class ${w}Parent { int base(int i) { i & 2 } }
        class ${w}Child extends ${w}Parent { int leaf(int i) { i & 3 } }
        ${receivers.replace('W_', w)}
        ${setup.replace('W_', w)}
        return { ->
            long acc = 0
            for (int i = 0; i < ${n}; i++) {
                if (i % ${period} == 0) { ${write.replace('W_', w)} }
                ${calls.collect { "acc += ${it}" }.join('\n                ')}
            }
            acc
        }
    """
    new GroovyShell(INDY).evaluate(src) as Closure
}

String writeOn(String cls) { "W_${cls}.metaClass.dyn0 = { int x -> 0 }" }

def workload = { int n, Map opts = [:] ->
    int period = opts.period ?: PERIOD
    String receiver = opts.receiver ?: 'Hot'
    String method = opts.method ?: 'compute'
    build(n, period, opts.write ?: '', ["o0.${method}(i)".toString()], "def o0 = new W_${receiver}()", '')
}

def hotSites = { int n, int sites, String write ->
    String classes = (0..<sites).collect { k -> "class W_C${k} { int m(int i) { (i + ${k}) & 1 } }\ndef o${k} = new W_C${k}()" }.join('\n')
    build(n.intdiv(sites), PERIOD, write, (0..<sites).collect { k -> "o${k}.m(i)".toString() }, classes, '')
}

// The fanout workload (probes/workloads.json): `sites` subclasses of Root, each with its own
// method m and one call site, and `write` (a class name, or null) every `period` iterations.
def fanout = { int n, int sites, int period, String write ->
    String classes = "class W_Root { int base(int i) { i & 2 } }\nclass W_Other {}\n" +
        (0..<sites).collect { k -> "class W_L${k} extends W_Root { int m(int i) { (i + ${k}) & 1 } }\ndef o${k} = new W_L${k}()" }.join('\n')
    build(n.intdiv(sites), period, write ? writeOn(write) : '', (0..<sites).collect { k -> "o${k}.m(i)".toString() }, classes, '')
}

// [workload, param, iterations, op] of every fanout row, in the shared definition's order.
// Read from the repository root, where scripts/probe.sh runs every probe.
def fanoutPlan = { int n ->
    def spec = new JsonSlurper().parse(new File('probes/workloads.json')).fanout
    spec.sites.collectMany { int sites -> spec.rows.collect { r -> [r.workload, sites, n.intdiv(sites) * sites, fanout(n, sites, spec.period as int, r.write as String)] } }
}

def burstThenSteady = { int n ->
    String setup = "(0..<${BURST}).each { k -> W_Unrelated.metaClass.\"dyn\${k}\" = { int x -> 0 } }"
    build(n, PERIOD, '', ['o0.compute(i)'], 'def o0 = new W_Hot()', setup)
}

// Times of `reps` runs of each op, taken in ROUNDS passes over the workloads. Within a pass each
// workload runs its warm-up and then its timed reps back to back, so no other workload's write
// lands between them (through Groovy 2.4's global SwitchPoint that would be crosstalk, not the
// workload's own cost); the passes spread a slow spell of a shared machine over every workload.
def measure = { List<Closure> ops, int reps, int warmup ->
    List<List<Long>> times = ops.collect { [] }
    ROUNDS.times { r ->
        int share = reps.intdiv(ROUNDS) + (r < reps % ROUNDS ? 1 : 0)
        ops.eachWithIndex { op, k ->
            warmup.times { op() }
            share.times {
                long t0 = System.nanoTime()
                op()
                times[k] << (System.nanoTime() - t0)
            }
        }
    }
    times.collect { it.sort() }
}

def quantile = { List<Long> values, double q ->
    double k = (values.size() - 1) * q
    int lo = (int) Math.floor(k)
    int hi = Math.min(lo + 1, values.size() - 1)
    values[lo] + (values[hi] - values[lo]) * (k - lo)
}

boolean quick = args.contains('--quick')
int n = quick ? 50000 : 200000
int reps = quick ? 9 : 45
int warmup = quick ? 5 : 20   // C2 compiles the loop after ~10^4 back-edges; warm up past it
List plan = [
    ['baseline', null, n, workload(n)],
    ['unrelated_churn', PERIOD, n, workload(n, [write: writeOn('Unrelated')])],
    ['same_class_churn', PERIOD, n, workload(n, [write: writeOn('Hot')])],
    ['parent_churn', PERIOD, n, workload(n, [write: writeOn('Parent'), receiver: 'Child', method: 'base'])],
    ['burst_then_steady', BURST, n, burstThenSteady(n)],
]
DENSITIES.each { period -> plan << ['density', period, n, workload(n, [period: period, write: writeOn('Hot')])] }
SITE_COUNTS.each { sites ->
    int iterations = n.intdiv(sites) * sites
    plan << ['hot_sites_baseline', sites, iterations, hotSites(n, sites, '')]
    plan << ['hot_sites', sites, iterations, hotSites(n, sites, writeOn('Unrelated'))]
}
plan.addAll(fanoutPlan(n))
def times = measure(plan.collect { it[3] }, reps, warmup)
def rows = plan.withIndex().collect { p, k ->
    List<Long> t = times[k]
    double median = quantile(t, 0.5)
    double iqr = median ? (quantile(t, 0.75) - quantile(t, 0.25)) / median : 0
    double low = t.first() ? (quantile(t, 0.25) - t.first()) / t.first() : 0
    [workload: p[0], param: p[1], iterations: p[2], reps: reps, warmup: warmup,
     min_ns: t.first(), median_ns: median, max_ns: t.last(), iqr_rel: Math.round(iqr * 1e4) / 1e4, wide: iqr > 0.25,
     low_rel: Math.round(low * 1e4) / 1e4, low_wide: low > LOW_WIDE]
}
def doc = [
    schema : 'blast-radius-probe/1',
    runtime: 'groovy',
    version: "Groovy ${GroovySystem.version} (indy), JVM ${System.getProperty('java.version')}".toString(),
    command: (['groovy', '--indy', 'probes/groovy/probe.groovy'] + (args as List)).join(' '),
    mode   : quick ? 'quick' : 'full',
    rows   : rows,
]
println JsonOutput.prettyPrint(JsonOutput.toJson(doc))
