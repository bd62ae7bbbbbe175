// Prints one line per metaclass change to stderr, the stream Groovy's indy log
// (-Dgroovy.indy.logging=true) is written to, so both keep their order in one file.
//
// Groovy's indy log records every call-site selection but not the metaclass change that made a
// site select again. MetaClassRegistryImpl.fireConstantMetaClassUpdate calls every registered
// MetaClassRegistryChangeEventListener on each change (IndyInterface's own listener is the one
// that invalidates the global SwitchPoint), so a listener sees exactly the changes the indy
// runtime reacts to. Written in Java, not Groovy, so that the listener makes no indy call sites
// of its own and adds nothing to the selection log.
//
// Line format (one line, space separated key=value):
//   METACLASS_CHANGE seq=<n> nanos=<System.nanoTime> class=<class name>
//       old=<metaclass class>@<identity hash> new=<metaclass class>@<identity hash> instance=<bool>
// where old/new are `null` when absent and instance=true marks a per-instance metaclass change.
import groovy.lang.GroovySystem;
import groovy.lang.MetaClass;
import groovy.lang.MetaClassRegistryChangeEvent;
import groovy.lang.MetaClassRegistryChangeEventListener;

public final class MetaClassChangeLog implements MetaClassRegistryChangeEventListener {
    private static long seq = 0;
    private static boolean installed = false;

    private MetaClassChangeLog() {}

    /** Registers the listener once; later calls do nothing. */
    public static synchronized void install() {
        if (installed) return;
        installed = true;
        GroovySystem.getMetaClassRegistry().addMetaClassRegistryChangeEventListener(new MetaClassChangeLog());
    }

    private static String describe(MetaClass mc) {
        if (mc == null) return "null";
        return mc.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(mc));
    }

    @Override
    public void updateConstantMetaClass(MetaClassRegistryChangeEvent e) {
        String line;
        synchronized (MetaClassChangeLog.class) {
            seq++;
            line = "METACLASS_CHANGE seq=" + seq + " nanos=" + System.nanoTime()
                    + " class=" + e.getClassToUpdate().getName()
                    + " old=" + describe(e.getOldMetaClass())
                    + " new=" + describe(e.getNewMetaClass())
                    + " instance=" + e.isPerInstanceMetaClassChange();
        }
        System.err.println(line);
    }
}
