fn main() {
    // The first render (the page state, the engine's lanes, the top bar) runs in a task of its
    // own, not in the one that compiled and instantiated the module: two shorter tasks during
    // load instead of one long one (issue 11).
    blast_web::browser::soon_detached(|| {
        yew::Renderer::<blast_web::App>::new().render();
    });
}
