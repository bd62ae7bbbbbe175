fn main() {
    // Three tasks during load instead of one long one (no task over 50 ms): the module is compiled and
    // instantiated in this one; the page state boots in the next (the autosave or link, the
    // default preset read and its lanes built, each engine function compiled at its first
    // call); the first render in the one after.
    blast_web::browser::soon_detached(|| {
        let booted = blast_web::app::Booted::now();
        blast_web::browser::soon_detached(move || {
            yew::Renderer::<blast_web::App>::with_props(blast_web::app::AppProps { booted }).render();
        });
    });
}
