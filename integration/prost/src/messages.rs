//! The messages, written by hand with `#[derive(Message)]` (no protoc) and
//! compiled once per prost copy: `prost_path = "prost"` makes the derived
//! code use the `prost` in scope, which each module binds to its copy.

macro_rules! messages {
    ($module:ident, $krate:ident) => {
        #[doc = concat!("The messages on `", stringify!($krate), "`.")]
        pub mod $module {
            pub use ::$krate as prost;

            /// What a telemetry record is about.
            #[derive(
                Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration,
            )]
            #[prost(prost_path = "prost")]
            #[repr(i32)]
            pub enum Kind {
                Unknown = 0,
                Get = 1,
                Put = 2,
                Delete = 3,
                List = 4,
                Watch = 5,
            }

            /// One telemetry record: ten varint fields and a short string.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct Telemetry {
                #[prost(int32, tag = "1")]
                pub status: i32,
                #[prost(int64, tag = "2")]
                pub timestamp_ms: i64,
                #[prost(uint64, tag = "3")]
                pub bytes: u64,
                #[prost(sint64, tag = "4")]
                pub delta: i64,
                #[prost(enumeration = "Kind", tag = "5")]
                pub kind: i32,
                #[prost(bool, tag = "6")]
                pub ok: bool,
                #[prost(uint32, tag = "7")]
                pub region: u32,
                #[prost(int64, tag = "8")]
                pub latency_us: i64,
                #[prost(uint64, tag = "9")]
                pub id: u64,
                #[prost(int32, tag = "10")]
                pub retries: i32,
                #[prost(string, tag = "11")]
                pub host: String,
            }

            /// A batch of telemetry records.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct TelemetryBatch {
                #[prost(message, repeated, tag = "1")]
                pub records: Vec<Telemetry>,
            }

            /// A node of a tree.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct Node {
                #[prost(uint32, tag = "1")]
                pub id: u32,
                #[prost(int64, tag = "2")]
                pub value: i64,
                #[prost(string, tag = "3")]
                pub name: String,
                #[prost(sint32, tag = "4")]
                pub delta: i32,
                #[prost(enumeration = "Kind", tag = "5")]
                pub kind: i32,
                #[prost(message, repeated, tag = "6")]
                pub children: Vec<Node>,
            }

            /// A packed `uint64` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedUint64 {
                #[prost(uint64, repeated, packed = "true", tag = "1")]
                pub values: Vec<u64>,
            }

            /// A packed `int32` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedInt32 {
                #[prost(int32, repeated, packed = "true", tag = "1")]
                pub values: Vec<i32>,
            }

            /// A packed `sint32` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedSint32 {
                #[prost(sint32, repeated, packed = "true", tag = "1")]
                pub values: Vec<i32>,
            }

            /// A packed `int64` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedInt64 {
                #[prost(int64, repeated, packed = "true", tag = "1")]
                pub values: Vec<i64>,
            }

            /// A packed `uint32` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedUint32 {
                #[prost(uint32, repeated, packed = "true", tag = "1")]
                pub values: Vec<u32>,
            }

            /// A packed `sint64` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedSint64 {
                #[prost(sint64, repeated, packed = "true", tag = "1")]
                pub values: Vec<i64>,
            }

            /// A packed `bool` field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedBool {
                #[prost(bool, repeated, packed = "true", tag = "1")]
                pub values: Vec<bool>,
            }

            /// A packed enum field.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct PackedEnum {
                #[prost(enumeration = "Kind", repeated, packed = "true", tag = "1")]
                pub values: Vec<i32>,
            }

            /// Every packed varint type prost has, for the differential
            /// tests.
            #[derive(Clone, PartialEq, prost::Message)]
            #[prost(prost_path = "prost")]
            pub struct AllPacked {
                #[prost(int32, repeated, packed = "true", tag = "1")]
                pub int32: Vec<i32>,
                #[prost(int64, repeated, packed = "true", tag = "2")]
                pub int64: Vec<i64>,
                #[prost(uint32, repeated, packed = "true", tag = "3")]
                pub uint32: Vec<u32>,
                #[prost(uint64, repeated, packed = "true", tag = "4")]
                pub uint64: Vec<u64>,
                #[prost(sint32, repeated, packed = "true", tag = "5")]
                pub sint32: Vec<i32>,
                #[prost(sint64, repeated, packed = "true", tag = "6")]
                pub sint64: Vec<i64>,
                #[prost(bool, repeated, packed = "true", tag = "7")]
                pub bool: Vec<bool>,
                #[prost(enumeration = "Kind", repeated, packed = "true", tag = "8")]
                pub kind: Vec<i32>,
                #[prost(int32, repeated, packed = "false", tag = "9")]
                pub unpacked: Vec<i32>,
                #[prost(message, optional, tag = "10")]
                pub record: Option<Telemetry>,
            }
        }
    };
}

messages!(upstream, prost_upstream);
messages!(control, prost_control);
messages!(vt, prost_vt);
messages!(vt_bulk, prost_vt_bulk);
