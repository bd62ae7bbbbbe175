// A class load that breaks a class-hierarchy-analysis (CHA) assumption (HotSpot).
//
// Shape is abstract and, while the first phase runs, Square is its only concrete subclass. The
// hot methods (perimeterOf, areaOf, describeOf, scaledOf) take a Shape; the JIT compiles them
// against the assumption that a Shape is always a Square (the dependency
// `abstract_with_unique_concrete_subtype`, ctxk = Shape) and inlines Square's methods. Then the
// program loads Circle, a second concrete subclass: HotSpot records
// `<dependency_failed type='abstract_with_unique_concrete_subtype' ctxk='ChaBreak$Shape'
// witness='ChaBreak$Circle'>` and makes every method compiled against the assumption not
// entrant (`<make_not_entrant ...>`). A second class, Counter, has its own hot method that
// depends on nothing about Shape and keeps its compiled code. Fixed counts, no randomness.
public class ChaBreak {
    static final int WARM = 30_000; // calls per hot method before the class load
    static final int AFTER = 30_000; // calls per hot method after it

    abstract static class Shape {
        abstract double area();
        abstract double perimeter();
        String name() { return "shape"; }
    }

    static final class Square extends Shape {
        final double side;
        Square(double side) { this.side = side; }
        double area() { return side * side; }
        double perimeter() { return 4 * side; }
        String name() { return "square"; }
    }

    // Loaded only when phase two starts (Class.forName): the witness of the broken dependency.
    static final class Circle extends Shape {
        final double r;
        Circle(double r) { this.r = r; }
        double area() { return 3.0 * r * r; }
        double perimeter() { return 6.0 * r; }
        String name() { return "circle"; }
    }

    static final class Counter {
        long n;
        long bump(int i) { n += i & 7; return n; }
    }

    static double areaOf(Shape s) { return s.area(); }
    static double perimeterOf(Shape s) { return s.perimeter(); }
    static int describeOf(Shape s) { return s.name().length(); }
    static double scaledOf(Shape s, int k) { return s.area() * k + s.perimeter(); }

    static double phase(Shape s, Counter c, int n) {
        double acc = 0;
        for (int i = 0; i < n; i++) {
            acc += areaOf(s) + perimeterOf(s) + describeOf(s) + scaledOf(s, i & 3);
            acc += c.bump(i);
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        Counter c = new Counter();
        double acc = phase(new Square(2), c, WARM);
        // The class load: Circle becomes Shape's second concrete subclass.
        Shape circle = (Shape) Class.forName("ChaBreak$Circle")
                .getDeclaredConstructor(double.class).newInstance(1.5);
        acc += phase(circle, c, AFTER);
        System.out.println("cha-break: acc=" + (long) acc);
    }
}
