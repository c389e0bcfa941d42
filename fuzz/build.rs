//! The fuzz crate compiles the repository's `tests/common/` (the
//! differential oracle and the CPUID census it checks the backends
//! against), which reads the cfgs that varint-turbo's build script gives
//! the crate's own tests: `varint_turbo_avx512` says whether the AVX-512
//! bulk backend is compiled in (rustc 1.89 and later). Build scripts' cfgs
//! reach only their own package, so this crate runs the same script.
//! Without it the census expected no AVX-512 backend and every fuzz target
//! that checks the backends failed at its first input on an AVX-512 CPU.

#[path = "../build.rs"]
mod varint_turbo_build;

fn main() {
    println!("cargo:rerun-if-changed=../build.rs");
    varint_turbo_build::main();
}
