// A small realistic program (HotSpot): an expression tree with a visitor, and a plugin registry
// that loads codec plugins by name while the program runs.
//
// Expr is abstract with two concrete node classes (Num, Add) walked by an evaluator and a
// printer-length visitor; Codec is abstract with one plugin (Rot) at first. The hot methods are
// compiled against what the class hierarchy looks like at that moment (class-hierarchy analysis:
// "a Codec is always a Rot", "Expr.eval has these two implementations"). Then, in two steps,
// the registry loads more classes by name (Class.forName), as a plugin system does:
//   1. Xor, a second Codec: breaks `abstract_with_unique_concrete_subtype` (ctxk = Codec) for
//      every method compiled against the unique-Codec assumption;
//   2. Mul, a third Expr node and the first to override Expr.weight: code compiled against
//      "Expr.weight has one implementation" (a CHA method dependency) is thrown away too.
// A Counter class with its own hot method depends on neither and keeps its compiled code.
// Fixed counts, no randomness.
import java.util.ArrayList;
import java.util.List;

public class PluginRegistry {
    static final int ROUNDS = 20_000; // rounds per phase

    abstract static class Codec {
        abstract int encode(int v);
        int decode(int v) { return encode(encode(v)); }
    }
    static final class Rot extends Codec {
        int encode(int v) { return (v << 3) | (v >>> 29); }
    }
    static final class Xor extends Codec {
        int encode(int v) { return v ^ 0x5a5a5a5a; }
    }

    interface Visitor<R> {
        R num(Num n);
        R add(Add a);
        R mul(Mul m);
    }
    abstract static class Expr {
        abstract int eval();
        abstract <R> R accept(Visitor<R> v);
        int weight() { return 1; } // overridden by Mul only: until Mul loads, CHA sees one target
    }
    static final class Num extends Expr {
        final int v;
        Num(int v) { this.v = v; }
        int eval() { return v; }
        <R> R accept(Visitor<R> vis) { return vis.num(this); }
    }
    static final class Add extends Expr {
        final Expr l, r;
        Add(Expr l, Expr r) { this.l = l; this.r = r; }
        int eval() { return l.eval() + r.eval(); }
        <R> R accept(Visitor<R> vis) { return vis.add(this); }
    }
    static final class Mul extends Expr {
        final Expr l, r;
        Mul(Expr l, Expr r) { this.l = l; this.r = r; }
        int eval() { return l.eval() * r.eval(); }
        int weight() { return 2; }
        <R> R accept(Visitor<R> vis) { return vis.mul(this); }
    }
    static final class Width implements Visitor<Integer> {
        public Integer num(Num n) { return 1; }
        public Integer add(Add a) { return a.l.accept(this) + a.r.accept(this) + 1; }
        public Integer mul(Mul m) { return m.l.accept(this) + m.r.accept(this) + 1; }
    }

    static final class Counter {
        long n;
        long bump(int i) { n += i & 7; return n; }
    }

    /** The registry: plugins are looked up by class name, as a plugin system would. */
    static final class Registry {
        final List<Codec> codecs = new ArrayList<>();
        Codec load(String name) throws Exception {
            Codec c = (Codec) Class.forName("PluginRegistry$" + name).getDeclaredConstructor().newInstance();
            codecs.add(c);
            return c;
        }
    }

    static int encodeWith(Codec c, int v) { return c.encode(v); }
    static int roundTrip(Codec c, int v) { return c.decode(v) - v; }
    static int evalOf(Expr e) { return e.eval(); }
    static int widthOf(Expr e, Width w) { return e.accept(w); }
    static int weightOf(Expr e) { return e.weight(); }

    static long phase(Codec codec, Expr expr, Counter counter, int rounds) {
        Width w = new Width();
        long acc = 0;
        for (int i = 0; i < rounds; i++) {
            acc += encodeWith(codec, i) + roundTrip(codec, i);
            acc += evalOf(expr) + widthOf(expr, w) + weightOf(expr);
            acc += counter.bump(i);
        }
        return acc;
    }

    static Expr tree(int depth) {
        return depth == 0 ? new Num(depth + 2) : new Add(tree(depth - 1), new Num(depth));
    }

    public static void main(String[] args) throws Exception {
        Registry registry = new Registry();
        Counter counter = new Counter();
        Expr expr = tree(3);
        long acc = phase(registry.load("Rot"), expr, counter, ROUNDS);
        // Step 1: a second codec plugin.
        acc += phase(registry.load("Xor"), expr, counter, ROUNDS);
        // Step 2: a third expression node, loaded by name like a plugin.
        Expr mul = (Expr) Class.forName("PluginRegistry$Mul")
                .getDeclaredConstructor(Expr.class, Expr.class).newInstance(expr, new Num(3));
        acc += phase(registry.codecs.get(0), mul, counter, ROUNDS);
        System.out.println("plugin-registry: acc=" + acc + " codecs=" + registry.codecs.size());
    }
}
