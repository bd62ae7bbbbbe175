//! The big world the lanes are tested and their codec measured on (`lanes`' tests, `lane_wire`'s,
//! and `benches/codec.rs`, which includes this file by path): compiled for tests only.

/// `sites` sites over 50 classes, called in one loop, with churn on class K1.
pub fn churn_world(sites: usize) -> String {
    let mut t = String::from("measure warmup 0 ops 1\n");
    for i in 0..50 {
        t += &format!("class K{i} {{ m }}\n");
    }
    for i in 0..sites {
        t += &format!("site s{i} = K{}.m\n", i % 50);
    }
    let calls: Vec<String> = (0..sites).map(|i| format!("call s{i}")).collect();
    t + &format!("op {{ loop 4 {{ every 2 {{ write K1.m }} {} }} }}\n", calls.join(" "))
}
