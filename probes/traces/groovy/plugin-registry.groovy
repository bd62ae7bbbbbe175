// A small realistic program (Groovy 2.4, `groovy --indy`): a text-plugin registry.
//
// Three plugin classes (Upper, Lower, Reverse) extend Plugin; a Pipeline runs them in order and
// a Registry builds plugins by name. The main loop calls each plugin at its own call site and
// the pipeline (whose inner site sees all three plugin classes) now and then. While it runs, the program
// "hot-reloads": it replaces the metaclass of a plugin class (Upper), of their parent (Plugin)
// and of a Config class nobody calls in the loop, each time with a fresh ExpandoMetaClass that
// has one more method, and rebuilds its plugins from the registry. Each replacement is one
// METACLASS_CHANGE line (MetaClassChangeLog) followed by the re-selections of every site the
// loop runs, whatever class changed (Groovy 2.4 invalidates one global SwitchPoint). A last,
// short loop sends all three plugins through one call site, which selects again every time the
// receiver's class changes. Fixed counts, no randomness.
//
// Run: groovy -cp DIR --indy -Dgroovy.indy.logging=true plugin-registry.groovy
MetaClassChangeLog.install()

class Plugin {
    String name() { getClass().simpleName }
    String handle(String s) { s }
}
class Upper extends Plugin { String handle(String s) { s.toUpperCase() } }
class Lower extends Plugin { String handle(String s) { s.toLowerCase() } }
class Reverse extends Plugin { String handle(String s) { s.reverse() } }
class Config { int level = 1 }

class Registry {
    Plugin create(String name) {
        switch (name) {
            case 'upper': return new Upper()
            case 'lower': return new Lower()
            default: return new Reverse()
        }
    }
}

class Pipeline {
    List<Plugin> plugins
    int run(String s) {
        int n = 0
        for (Plugin p : plugins) { n += p.handle(s).length() }
        n
    }
}

/** A fresh, unregistered ExpandoMetaClass for `c` with one method `reloaded<k>`. */
MetaClass expandoWith(Class c, int k) {
    def emc = new ExpandoMetaClass(c, false, true)
    emc.initialize()
    emc.registerInstanceMethod("reloaded" + k, { -> k })
    emc
}

final int N = 1500                                // main loop iterations
final int RELOAD_EVERY = 300                      // iterations between hot reloads
final int PIPELINE_EVERY = 100                    // iterations between pipeline runs
final List<Class> RELOADED = [Upper, Config, Plugin, Config]  // what each reload replaces

def registry = new Registry()
Plugin upper = registry.create('upper')
Plugin lower = registry.create('lower')
Plugin reverse = registry.create('reverse')
def pipeline = new Pipeline(plugins: [upper, lower, reverse])
long acc = 0
int reloads = 0
for (int i = 0; i < N; i++) {
    if (i > 0 && i % RELOAD_EVERY == 0 && reloads < RELOADED.size()) {
        Class target = RELOADED[reloads]
        reloads++
        GroovySystem.metaClassRegistry.setMetaClass(target, expandoWith(target, reloads))
        upper = registry.create('upper')
        lower = registry.create('lower')
        reverse = registry.create('reverse')
        pipeline = new Pipeline(plugins: [upper, lower, reverse])
    }
    String word = (i & 1) ? 'Blast' : 'Radius'
    acc += upper.handle(word).length()
    acc += lower.handle(word).length()
    acc += reverse.handle(word).length()
    // The pipeline's inner site sees three receiver classes and selects again at each change of
    // class (about 3 KB of log each time), so it runs only every PIPELINE_EVERY iterations.
    if (i % PIPELINE_EVERY == 0) acc += pipeline.run(word)
}
// One site, three receiver classes in turn.
for (int i = 0; i < 12; i++) {
    for (Plugin p : [upper, lower, reverse]) { acc += p.handle('mixed').length() }
}
System.out.println("plugin-registry: acc=" + acc + " reloads=" + reloads)
