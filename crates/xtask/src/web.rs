//! The playground page: `serve`, `build` and the browser tests. (The page
//! issue fills this in.)

/// Builds and serves the page on 127.0.0.1:8080.
pub fn serve() -> Result<(), String> {
    Err("the playground page is not built yet (issue 4)".into())
}

/// Writes a deployable `dist/`.
pub fn build() -> Result<std::path::PathBuf, String> {
    Err("the playground page is not built yet (issue 4)".into())
}

/// Browser tests against the built `dist/`; nothing to test until the page exists.
pub fn browser_tests() -> Result<(), String> {
    Ok(())
}
