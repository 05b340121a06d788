pub mod passes; pub mod rewrite; pub mod codegen;
