fn main() {
    yew::Renderer::<blast_web::App>::new().render();
}
