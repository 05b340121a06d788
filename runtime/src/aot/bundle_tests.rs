use super::*;
use crate::aot::test_support::leak_aligned;

fn sample() -> Bundle {
    let w0 = Tensor::from_vec(vec![0.5f32, 1.5, 2.5, 3.5, 4.5, 5.5], &[2, 3]).unwrap();
    let transposed = Tensor::from_vec((0..6).map(|i| i as f64).collect(), &[2, 3])
        .unwrap()
        .transpose(0, 1)
        .unwrap();
    let ints = Tensor::from_vec(vec![7i64, -8, 9], &[3]).unwrap();
    let empty = Tensor::zeros(&[0, 4], DType::F32).unwrap();
    let bools = Tensor::from_vec(vec![true, false], &[2]).unwrap();
    Bundle {
        graph_text: "graph(%x : Tensor):\n  return (%x)\n".into(),
        n_user_inputs: 2,
        input_names: vec!["x".into(), "n".into()],
        guard_types: vec![
            "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)".into(),
            "int".into(),
        ],
        defaults: "graph():\n  %0 : int = prim::Constant[value=3]()\n  return (%0)\n".into(),
        weights: vec![w0, transposed, ints, empty, bools],
        memory_plan: Some(MemoryPlan {
            slots: vec![Some((100, 0)), None, Some((64, 128))],
            total: 192,
        }),
    }
}

fn same_weights(a: &[Tensor], b: &[Tensor]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.dtype(), y.dtype());
        assert_eq!(x.sizes(), y.sizes());
        assert_eq!(x.strides(), y.strides());
        assert_eq!(
            x.contiguous().unwrap().to_vec::<u8>().len(),
            y.contiguous().unwrap().to_vec::<u8>().len()
        );
        let (xf, yf): (Vec<f64>, Vec<f64>) = (to_f64(x), to_f64(y));
        assert_eq!(xf, yf);
    }
}

fn to_f64(t: &Tensor) -> Vec<f64> {
    let c = t.contiguous().unwrap();
    crate::dispatch_dtype!(c.dtype(), T => {
        c.to_vec::<T>().into_iter().map(|v| v.to_f64()).collect()
    })
}

use crate::tensor::Element;

/// Recomputes the fingerprint of a (damaged) bundle, so that the checks behind it run.
fn refingerprint(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let data_offset = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    if data_offset < HEADER_LEN || data_offset > bytes.len() {
        return;
    }
    let f = fnv1a(&bytes[HEADER_LEN..data_offset]);
    bytes[40..48].copy_from_slice(&f.to_le_bytes());
}

#[test]
fn round_trips_embedded_and_external() {
    let b = sample();
    let (bytes, none) = b.to_bytes(false);
    assert!(none.is_none());
    let back = Bundle::parse_copied(&bytes, None).unwrap();
    assert_eq!(back.graph_text, b.graph_text);
    assert_eq!(back.n_user_inputs, 2);
    assert_eq!(back.input_names, b.input_names);
    assert_eq!(back.guard_types, b.guard_types);
    assert_eq!(back.defaults, b.defaults);
    same_weights(&back.weights, &b.weights);
    assert_eq!(back.memory_plan, b.memory_plan);
    let no_plan = Bundle {
        memory_plan: None,
        ..sample()
    };
    let back = Bundle::parse_copied(&no_plan.to_bytes(false).0, None).unwrap();
    assert_eq!(back.memory_plan, None);

    let (small, file) = b.to_bytes(true);
    let file = file.unwrap();
    assert!(small.len() < bytes.len());
    assert!(Bundle::weights_external(&small).unwrap());
    let back = Bundle::parse_copied(&small, Some(&file)).unwrap();
    same_weights(&back.weights, &b.weights);
    assert!(Bundle::parse_copied(&small, None)
        .unwrap_err()
        .contains("separate file"));
    assert!(Bundle::parse_copied(&bytes, Some(&file))
        .unwrap_err()
        .contains("embeds"));
}

#[test]
fn bytes_are_deterministic() {
    assert_eq!(sample().to_bytes(false), sample().to_bytes(false));
    assert_eq!(sample().to_bytes(true), sample().to_bytes(true));
}

#[test]
fn static_bundles_are_wrapped_without_a_copy() {
    let (bytes, _) = sample().to_bytes(false);
    let stat = leak_aligned(&bytes);
    let back = Bundle::parse(stat, None).unwrap();
    same_weights(&back.weights, &sample().weights);
    let range = stat.as_ptr() as usize..stat.as_ptr() as usize + stat.len();
    for w in back.weights.iter().filter(|w| w.numel() > 0) {
        assert!(range.contains(&(w.data_ptr() as usize)), "weight copied");
        assert_eq!(w.storage().as_ptr() as usize % ALIGN, 0);
    }
}

#[test]
fn external_weights_are_mapped() {
    let (bytes, file) = sample().to_bytes(true);
    let dir = std::env::temp_dir().join(format!("ember-bundle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.bin");
    std::fs::write(&path, file.unwrap()).unwrap();
    let stat = leak_aligned(&bytes);
    let back = Bundle::parse(stat, Some(&path)).unwrap();
    same_weights(&back.weights, &sample().weights);
    // Private mapping: writing a weight is allowed and never reaches the file.
    let before = std::fs::read(&path).unwrap();
    back.weights[0]
        .copy_from(&Tensor::zeros(&[2, 3], DType::F32).unwrap())
        .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let err = Bundle::parse(stat, Some(&dir.join("missing.bin"))).unwrap_err();
    assert!(err.contains("cannot open weights file"), "{err}");
    assert!(Bundle::parse(stat, None)
        .unwrap_err()
        .contains("separate file"));

    // Another model's weights file is refused.
    let mut other = sample();
    other.graph_text.push_str("# other\n");
    let (_, other_file) = other.to_bytes(true);
    std::fs::write(&path, other_file.unwrap()).unwrap();
    let err = Bundle::parse(stat, Some(&path)).unwrap_err();
    assert!(err.contains("another model"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_truncation_is_an_error() {
    let (bytes, _) = sample().to_bytes(false);
    for n in 0..bytes.len() {
        let err = Bundle::parse_copied(&bytes[..n], None).unwrap_err();
        assert!(!err.is_empty());
    }
    let (small, file) = sample().to_bytes(true);
    let file = file.unwrap();
    for n in 0..file.len() {
        assert!(
            Bundle::parse_copied(&small, Some(&file[..n])).is_err(),
            "{n}"
        );
    }
}

#[test]
fn flipped_bytes_never_panic() {
    let (bytes, _) = sample().to_bytes(false);
    let data_offset = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    for i in 0..bytes.len() {
        for flip in [0xffu8, 0x01, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            let plain = Bundle::parse_copied(&b, None);
            if i < data_offset && !(40..48).contains(&i) {
                // The header and the descriptors are covered by the fingerprint.
                assert!(plain.is_err(), "flip {flip:#x} at {i} accepted");
            }
            // With the fingerprint made right again, the deeper checks must hold alone.
            refingerprint(&mut b);
            let _ = Bundle::parse_copied(&b, None);
        }
    }
}

/// The offset of weight `k`'s descriptor fields in `sample()`'s bytes: found by parsing.
fn descriptor_field(bytes: &[u8], weight: usize) -> usize {
    let mut c = Reader::new(&bytes[HEADER_LEN..], "test");
    c.len().unwrap();
    c.string().unwrap();
    c.strings().unwrap();
    c.strings().unwrap();
    c.string().unwrap();
    c.len().unwrap();
    for _ in 0..weight {
        c.take(4).unwrap();
        let nd = c.u32().unwrap() as usize;
        c.take(16 * nd + 24).unwrap();
    }
    HEADER_LEN + c.pos
}

fn damaged(edit: impl Fn(&mut Vec<u8>)) -> String {
    let (mut bytes, _) = sample().to_bytes(false);
    edit(&mut bytes);
    refingerprint(&mut bytes);
    Bundle::parse_copied(&bytes, None).unwrap_err()
}

#[test]
fn malformed_fields_have_clear_errors() {
    assert!(damaged(|b| b[0] = b'X').contains("wrong magic"));
    // An object of the format before is refused, not run with a runtime it was not built for.
    assert!(damaged(|b| b[8] = 3).contains("version 3"));
    assert!(damaged(|b| b[12] = 4).contains("unknown bundle flags"));
    assert!(damaged(|b| b.push(0)).contains("truncated or padded"));
    // A huge count of input names.
    let err = damaged(|b| {
        let at = HEADER_LEN + 8 + 8 + sample().graph_text.len();
        b[at..at + 8].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    });
    assert!(err.contains("exceeds the bytes left"), "{err}");
    let w0 = descriptor_field(&sample().to_bytes(false).0, 0);
    assert!(damaged(|b| b[w0] = 99).contains("bad dtype code 99"));
    assert!(damaged(|b| b[w0 + 1] = 7).contains("requires_grad"));
    assert!(damaged(|b| b[w0 + 4] = 200).contains("dimensions"));
    // A size that overflows the element count.
    let err = damaged(|b| b[w0 + 8..w0 + 16].copy_from_slice(&i64::MAX.to_le_bytes()));
    assert!(err.contains("weight 0"), "{err}");
    // A negative size.
    let err = damaged(|b| b[w0 + 8..w0 + 16].copy_from_slice(&(-3i64).to_le_bytes()));
    assert!(err.contains("negative"), "{err}");
    // A stride that reaches past the data.
    let err = damaged(|b| b[w0 + 24..w0 + 32].copy_from_slice(&1000i64.to_le_bytes()));
    assert!(err.contains("do not fit"), "{err}");
    // Data offset out of range, and misaligned.
    let off = w0 + 8 + 16 * 2 + 8;
    let err = damaged(|b| b[off..off + 8].copy_from_slice(&(1u64 << 40).to_le_bytes()));
    assert!(err.contains("outside"), "{err}");
    let err = damaged(|b| b[off..off + 8].copy_from_slice(&8u64.to_le_bytes()));
    assert!(err.contains("aligned"), "{err}");
    // A data length that overflows with the offset.
    let err = damaged(|b| b[off + 8..off + 16].copy_from_slice(&(isize::MAX as u64).to_le_bytes()));
    assert!(err.contains("outside"), "{err}");
    // The memory plan (after the last weight): a huge count, a buffer outside its block.
    let plan = descriptor_field(&sample().to_bytes(false).0, 5);
    let err = damaged(|b| b[plan..plan + 8].copy_from_slice(&(1u64 << 40).to_le_bytes()));
    assert!(err.contains("exceeds the bytes left"), "{err}");
    let err = damaged(|b| b[plan + 16..plan + 24].copy_from_slice(&4096u64.to_le_bytes()));
    assert!(err.contains("memory plan buffer 0"), "{err}");
}
