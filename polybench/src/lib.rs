//! Not yet implemented: this crate's issue has not come yet.
