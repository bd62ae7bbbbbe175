// The `length` sweep's fresh loops (probes/groovy/sweeps.groovy, branch `length`) with each op's
// start printed in JVM uptime, so that `-XX:+LogCompilation` stamps and back-edge counts line up
// with the ops: where the Groovy 2.4 profile's compile parameters come from (`c1_compile_2_4_ns`,
// `c2_compile_2_4_ns`, `c2_queue_2_4`, `chain_call_2_4_ns`). Run by `scripts/length-compiles.sh`.
//
//     groovy --indy probes/groovy/length_compiles.groovy WARMUP WORLDS OPS
//
// Prints one line a world: `world K CLASS start+ms start+ms ..` (ms since the JVM started, op time).

import org.codehaus.groovy.control.CompilerConfiguration

INDY = new CompilerConfiguration()
INDY.optimizationOptions.indy = true
worldId = 0
int warmup = args[0] as int
int worlds = args[1] as int
int ops = args[2] as int

// As the probe's `build`: new classes, a new loop method and new call sites every world.
Closure build(int period) {
    worldId++
    String src = """
        class W_Hot { int compute(int i) { i & 1 } }
        def o = new W_Hot()
        return { ->
            long acc = 0
            for (int i = 0; i < 100000; i++) {
                if (i % ${period} == 0) { W_Hot.metaClass.dyn0 = { int x -> 0 } }
                acc += o.compute(i)
            }
            acc
        }
    """.replace('W_', "W${worldId}_")
    new GroovyShell(INDY).evaluate(src) as Closure
}

def rt = java.lang.management.ManagementFactory.getRuntimeMXBean()
Closure warm = build(10)
warmup.times { warm() }
worlds.times { k ->
    Closure op = build(1000)
    long base = System.nanoTime()
    long up = rt.getUptime()
    List r = []
    ops.times {
        long t0 = System.nanoTime()
        op()
        long t1 = System.nanoTime()
        r << String.format('%.1f+%.2f', up + (t0 - base) / 1e6, (t1 - t0) / 1e6)
    }
    println "world ${k} ${op.getClass().name} " + r.join(' ')
}
