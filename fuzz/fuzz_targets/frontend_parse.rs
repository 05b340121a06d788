//! Lexer and parser on arbitrary bytes (as lossy UTF-8): they must return tokens, an AST or a
//! FrontendError, never panic, overflow the stack or hang; the AST dump and the error rendering
//! must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

// The frontend modules the parser needs, compiled from the compiler crate's sources (they only
// use each other and ember-dialects), as siblings so their `super::` paths resolve.
#[path = "../../compiler/src/frontend/ast.rs"]
#[allow(dead_code)]
mod ast;
#[path = "../../compiler/src/frontend/ast_dump.rs"]
#[allow(dead_code)]
mod ast_dump;
#[path = "../../compiler/src/frontend/error.rs"]
#[allow(dead_code)]
mod error;
#[path = "../../compiler/src/frontend/lexer.rs"]
#[allow(dead_code)]
mod lexer;
#[path = "../../compiler/src/frontend/parser.rs"]
#[allow(dead_code)]
mod parser;
#[path = "../../compiler/src/frontend/span.rs"]
#[allow(dead_code)]
mod span;

use lexer::{Lexer, TokenKind};
use span::SourceFile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let file = SourceFile::new("fuzz.py", text);

    // The lexer alone ends (at EOF or an error) within a bounded number of tokens.
    let mut lexer = Lexer::new(&file);
    let limit = 4 * file.text.len() + 16;
    for _ in 0..limit {
        match lexer.next_token() {
            Ok(t) if t.kind == TokenKind::Eof => break,
            Ok(_) => {}
            Err(e) => {
                e.render(&file);
                break;
            }
        }
    }

    match parser::parse_module(&file) {
        Ok(m) => {
            ast_dump::dump_module(&m);
        }
        Err(e) => {
            e.render(&file);
        }
    }
    if let Ok(e) = parser::parse_expr(&file) {
        ast_dump::dump_expr(&e);
    }
});
