//! The Arazzo extension for Zed: starts `arazzo lsp` (stdio) for YAML and JSON documents.
//!
//! The command is `lsp.arazzo.binary.path` of Zed's settings when set, else `arazzo` found on the
//! worktree's `PATH` (its shell environment: a virtual environment activated by direnv or the shell
//! profile counts); its arguments are `lsp.arazzo.binary.arguments`, else `["lsp"]`. Nothing is
//! downloaded: the server is the Python package `arazzo-engine[lsp]`, installed by the user.

use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

struct ArazzoExtension;

impl zed::Extension for ArazzoExtension {
    fn new() -> Self {
        ArazzoExtension
    }

    fn language_server_command(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured = binary.as_ref().and_then(|binary| binary.path.clone());
        let command = match configured.or_else(|| worktree.which("arazzo")) {
            Some(command) => command,
            None => {
                return Err("`arazzo` is not on the PATH: `pip install 'arazzo-engine[lsp]'`, \
                            or set lsp.arazzo.binary.path in Zed's settings"
                    .to_string())
            }
        };
        let args = binary
            .as_ref()
            .and_then(|binary| binary.arguments.clone())
            .unwrap_or_else(|| vec!["lsp".to_string()]);
        let mut env = worktree.shell_env();
        if let Some(extra) = binary.and_then(|binary| binary.env) {
            env.extend(extra);
        }
        Ok(zed::Command { command, args, env })
    }
}

zed::register_extension!(ArazzoExtension);
