// Class loads that break class-hierarchy-analysis (CHA) assumptions (HotSpot), in a hierarchy
// two levels deep, beside an unrelated one.
//
//   Shape (abstract) <- Polygon (abstract) <- Square        Fuel (abstract) <- Diesel
//
// While the first phase runs, Square is the only concrete Shape and the only concrete Polygon,
// Diesel the only concrete Fuel. The hot methods taking a Shape (areaOf, perimeterOf,
// describeOf, scaledOf), a Polygon (sidesOf) or a Fuel (energyOf) are compiled against those
// assumptions (the dependency `abstract_with_unique_concrete_subtype`, ctxk = the parameter's
// class) and inline Square's and Diesel's methods. Then the program loads, by name:
//   1. Triangle extends Polygon: a second concrete Polygon, and so a second concrete Shape two
//      levels down: every method compiled against either assumption is made not entrant; the
//      Fuel method, on a class that is not Triangle's supertype, keeps its code;
//   2. Circle extends Shape, the first class to override Shape.weight: code compiled in phase
//      two against "Shape.weight has one implementation" (weightOf) is thrown away.
// A Counter class with its own hot method depends on none of it. Fixed counts, no randomness.
public class ChaBreak {
    static final int CALLS = 30_000; // calls per hot method per phase

    abstract static class Shape {
        abstract double area();
        abstract double perimeter();
        String name() { return "shape"; }
        int weight() { return 1; } // overridden by Circle only
    }

    abstract static class Polygon extends Shape {
        abstract int sides();
    }

    static final class Square extends Polygon {
        final double side;
        Square(double side) { this.side = side; }
        double area() { return side * side; }
        double perimeter() { return 4 * side; }
        int sides() { return 4; }
        String name() { return "square"; }
    }

    // Loaded by name when phase two starts.
    static final class Triangle extends Polygon {
        final double a;
        Triangle(double a) { this.a = a; }
        double area() { return 0.43 * a * a; }
        double perimeter() { return 3 * a; }
        int sides() { return 3; }
        String name() { return "triangle"; }
    }

    // Loaded by name when phase three starts.
    static final class Circle extends Shape {
        final double r;
        Circle(double r) { this.r = r; }
        double area() { return 3.0 * r * r; }
        double perimeter() { return 6.0 * r; }
        String name() { return "circle"; }
        int weight() { return 2; }
    }

    abstract static class Fuel {
        abstract double energy();
    }

    static final class Diesel extends Fuel {
        double energy() { return 45.5; }
    }

    static final class Counter {
        long n;
        long bump(int i) { n += i & 7; return n; }
    }

    static double areaOf(Shape s) { return s.area(); }
    static double perimeterOf(Shape s) { return s.perimeter(); }
    static int describeOf(Shape s) { return s.name().length(); }
    static double scaledOf(Shape s, int k) { return s.area() * k + s.perimeter(); }
    static int weightOf(Shape s) { return s.weight(); }
    static int sidesOf(Polygon p) { return p.sides(); }
    static double energyOf(Fuel f) { return f.energy(); }

    static double phase(Shape s, Polygon p, Fuel f, Counter c) {
        double acc = 0;
        for (int i = 0; i < CALLS; i++) {
            acc += areaOf(s) + perimeterOf(s) + describeOf(s) + scaledOf(s, i & 3) + weightOf(s);
            acc += sidesOf(p) + energyOf(f);
            acc += c.bump(i);
        }
        return acc;
    }

    static Object load(String name, double arg) throws Exception {
        return Class.forName("ChaBreak$" + name).getDeclaredConstructor(double.class).newInstance(arg);
    }

    public static void main(String[] args) throws Exception {
        Counter c = new Counter();
        Fuel f = new Diesel();
        Square square = new Square(2);
        double acc = phase(square, square, f, c);
        // Load 1: Triangle, a second concrete Polygon (and Shape, two levels down).
        Polygon triangle = (Polygon) load("Triangle", 1.5);
        acc += phase(triangle, triangle, f, c);
        // Load 2: Circle, a concrete Shape overriding weight.
        Shape circle = (Shape) load("Circle", 1.5);
        acc += phase(circle, triangle, f, c);
        System.out.println("cha-break: acc=" + (long) acc);
    }
}
