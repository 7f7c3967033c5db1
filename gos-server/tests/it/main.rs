//! The integration tests of gos-server, one binary (`tests/it/`): the HTTP routes in process.

mod guard;
mod http;
mod library_files;
