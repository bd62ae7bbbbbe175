// Records the class tree of a compiled program for the trace replay (the format is in
// crates/engine/src/trace/classes.rs): HotSpot's LogCompilation names a compile's classes but not
// their supertypes, so a class load cannot be placed in the hierarchy from the log alone.
//
//   java -cp CLASSES:TREE ClassTree OUT.classes CLASSES MAIN
//
// Run by scripts/capture-traces.sh right after the traced run, on the same compiled classes, in
// a JVM of its own (a Java agent in the traced JVM made its log 2.9 times bigger and added a
// class load of its own). Every class file under CLASSES that is MAIN or nested in it
// (`MAIN$...`) is loaded without being initialized
// (Class.forName(name, false, loader)); one line is written per class and per supertype of
// those (JDK classes such as java.lang.Object too, without methods): its name as Class.getName
// spells it (the log's dotted form), its superclass, its direct interfaces, abstract /
// interface, whether it declares a finalizer, and the concrete instance methods it declares as
// name + JVM descriptor. Lines are sorted by name, so two runs give the same file.
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public final class ClassTree {
    private ClassTree() {}

    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[1]);
        ClassLoader loader = ClassTree.class.getClassLoader();
        TreeMap<String, Class<?>> classes = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(f -> f.toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
        for (Path f : files) {
            String rel = root.relativize(f).toString();
            String name = rel.substring(0, rel.length() - ".class".length()).replace(java.io.File.separatorChar, '.');
            if (!name.equals(args[2]) && !name.startsWith(args[2] + "$")) {
                continue;
            }
            addWithSupers(Class.forName(name, false, loader), classes);
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8))) {
            w.println("# class tree of " + args[2] + ", recorded by probes/traces/java/tree/ClassTree.java");
            for (Class<?> c : classes.values()) {
                w.println(line(c, c.getClassLoader() == loader));
            }
        }
    }

    private static void addWithSupers(Class<?> c, TreeMap<String, Class<?>> classes) {
        if (c == null || classes.containsKey(c.getName())) {
            return;
        }
        classes.put(c.getName(), c);
        addWithSupers(c.getSuperclass(), classes);
        for (Class<?> i : c.getInterfaces()) {
            addWithSupers(i, classes);
        }
    }

    private static String line(Class<?> c, boolean withMethods) {
        StringBuilder s = new StringBuilder("class ").append(c.getName());
        if (c.getSuperclass() != null) {
            s.append(" extends ").append(c.getSuperclass().getName());
        }
        Class<?>[] ifaces = c.getInterfaces();
        if (ifaces.length > 0) {
            s.append(" implements ");
            for (int i = 0; i < ifaces.length; i++) {
                s.append(i == 0 ? "" : ",").append(ifaces[i].getName());
            }
        }
        if (c.isInterface()) {
            s.append(" interface");
        } else if (Modifier.isAbstract(c.getModifiers())) {
            s.append(" abstract");
        }
        List<String> methods = new ArrayList<>();
        boolean finalizer = false;
        for (Method m : c.getDeclaredMethods()) {
            int mod = m.getModifiers();
            if (Modifier.isAbstract(mod) || Modifier.isStatic(mod) || m.isSynthetic()) {
                continue;
            }
            String d = descriptor(m);
            // Object's own empty finalize() is not one (HotSpot's has_finalizer skips it).
            finalizer |= c != Object.class && m.getName().equals("finalize") && d.equals("()V");
            methods.add(m.getName() + d);
        }
        if (finalizer) {
            s.append(" finalizer");
        }
        if (withMethods && !methods.isEmpty()) {
            methods.sort(null);
            s.append(" methods ").append(String.join(",", methods));
        }
        return s.toString();
    }

    private static String descriptor(Method m) {
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            d.append(type(p));
        }
        return d.append(')').append(type(m.getReturnType())).toString();
    }

    private static String type(Class<?> t) {
        if (t.isArray()) return "[" + type(t.getComponentType());
        if (t == void.class) return "V";
        if (t == int.class) return "I";
        if (t == long.class) return "J";
        if (t == double.class) return "D";
        if (t == float.class) return "F";
        if (t == boolean.class) return "Z";
        if (t == byte.class) return "B";
        if (t == char.class) return "C";
        if (t == short.class) return "S";
        return "L" + t.getName().replace('.', '/') + ";";
    }
}
