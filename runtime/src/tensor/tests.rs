use super::*;

fn arange(n: i64, sizes: &[i64]) -> Tensor {
    Tensor::from_vec((0..n).map(|x| x as f32).collect::<Vec<f32>>(), sizes).unwrap()
}

#[test]
fn views_share_storage_and_see_writes() {
    let base = arange(12, &[3, 4]);
    let row = base.select(0, 1).unwrap();
    assert_eq!(row.to_vec::<f32>(), vec![4.0, 5.0, 6.0, 7.0]);
    let col = base.slice(1, Some(1), Some(4), 2).unwrap();
    assert_eq!(col.sizes().as_slice(), &[3, 2]);
    assert_eq!(col.to_vec::<f32>(), vec![1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
    // An in-place write through one view is seen by the base and by other views.
    row.copy_from(&Tensor::scalar(-1.0, DType::F32).unwrap())
        .unwrap();
    assert_eq!(base.to_vec::<f32>()[4..8], [-1.0; 4]);
    assert_eq!(col.to_vec::<f32>()[2..4], [-1.0, -1.0]);
    assert!(row.shares_storage(&base) && !row.is_same(&base));
}

#[test]
fn transpose_permute_expand_diagonal() {
    let x = arange(6, &[2, 3]);
    let t = x.t().unwrap();
    assert_eq!(t.to_vec::<f32>(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert!(!t.is_contiguous());
    assert_eq!(t.contiguous().unwrap().strides().as_slice(), &[2, 1]);
    let p = arange(24, &[2, 3, 4]).permute(&[2, 0, 1]).unwrap();
    assert_eq!(p.sizes().as_slice(), &[4, 2, 3]);
    assert_eq!(p.to_vec::<f32>()[..3], [0.0, 4.0, 8.0]);
    let e = arange(3, &[3, 1]).expand(&[2, 3, 4]).unwrap();
    assert_eq!(e.strides().as_slice(), &[0, 1, 0]);
    assert_eq!(
        e.to_vec::<f32>()[..8],
        [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    );
    assert!(arange(3, &[3]).expand(&[2, 4]).is_err());
    let d = arange(9, &[3, 3]).diagonal(1, 0, 1).unwrap();
    assert_eq!(d.to_vec::<f32>(), vec![1.0, 5.0]);
    let d = arange(9, &[3, 3]).diagonal(-1, 0, 1).unwrap();
    assert_eq!(d.to_vec::<f32>(), vec![3.0, 7.0]);
}

#[test]
fn view_reshape_squeeze_unsqueeze() {
    let x = arange(12, &[3, 4]);
    assert_eq!(x.view(&[2, -1]).unwrap().sizes().as_slice(), &[2, 6]);
    assert_eq!(
        x.view(&[5, -1]).unwrap_err().message,
        "shape '[5, -1]' is invalid for input of size 12"
    );
    // A transposed tensor cannot be viewed flat, but can be reshaped (copying).
    let t = x.t().unwrap();
    assert!(t.view(&[12]).is_err());
    let r = t.reshape(&[12]).unwrap();
    assert!(!r.shares_storage(&x));
    assert_eq!(r.to_vec::<f32>()[..4], [0.0, 4.0, 8.0, 1.0]);
    // Viewing a transposed tensor along compatible dims works without copying.
    let v = arange(24, &[2, 3, 4])
        .transpose(0, 1)
        .unwrap()
        .view(&[3, 2, 2, 2])
        .unwrap();
    assert_eq!(v.strides().as_slice(), &[4, 12, 2, 1]);
    let u = x.unsqueeze(1).unwrap();
    assert_eq!(
        (u.sizes().as_slice(), u.strides().as_slice()),
        (&[3, 1, 4][..], &[4, 4, 1][..])
    );
    assert_eq!(x.unsqueeze(-1).unwrap().sizes().as_slice(), &[3, 4, 1]);
    assert_eq!(u.squeeze(None).unwrap().sizes().as_slice(), &[3, 4]);
    assert_eq!(u.squeeze(Some(0)).unwrap().sizes().as_slice(), &[3, 1, 4]);
    assert_eq!(x.narrow(1, -2, 2).unwrap().to_vec::<f32>()[..2], [2.0, 3.0]);
    assert!(x.narrow(1, 3, 2).is_err());
}

#[test]
fn select_and_slice_bounds() {
    let x = arange(6, &[2, 3]);
    assert_eq!(x.select(1, -1).unwrap().to_vec::<f32>(), vec![2.0, 5.0]);
    assert_eq!(
        x.select(0, 2).unwrap_err().message,
        "select(): index 2 out of range for tensor of size [2, 3] at dimension 0"
    );
    assert_eq!(
        x.slice(1, Some(-100), Some(100), 1)
            .unwrap()
            .sizes()
            .as_slice(),
        &[2, 3]
    );
    assert_eq!(
        x.slice(1, Some(2), Some(1), 1).unwrap().sizes().as_slice(),
        &[2, 0]
    );
    assert!(x.slice(0, None, None, 0).is_err());
    let empty = Tensor::zeros(&[0, 3], DType::F32).unwrap();
    assert_eq!(empty.to_vec::<f32>(), Vec::<f32>::new());
    assert_eq!(empty.view(&[3, 0]).unwrap().numel(), 0);
}

#[test]
fn metadata_changes_in_place_are_seen_by_every_handle() {
    let x = arange(6, &[2, 3]);
    let same = x.clone();
    let m = x.unsqueeze(0).unwrap().meta().clone();
    x.set_meta(m).unwrap();
    assert_eq!(same.sizes().as_slice(), &[1, 2, 3]);
}

#[test]
fn out_of_bounds_metadata_is_refused() {
    let x = arange(6, &[6]);
    assert!(x.as_strided(&[3], &[3], 0).is_err());
    assert!(x.as_strided(&[2, 2], &[2, 1], 2).is_ok());
    assert!(x.as_strided(&[2, 2], &[2, 1], 3).is_err());
    assert!(x.as_strided(&[2], &[1], -1).is_err());
    assert!(Tensor::zeros(&[1 << 40, 1 << 40], DType::F32).is_err());
    assert!(Tensor::from_vec(vec![1i64, 2], &[3]).is_err());
}

#[test]
fn conversions_and_items() {
    let x = Tensor::from_vec(vec![1.5f32, -2.5], &[2]).unwrap();
    assert_eq!(x.to_vec::<i64>(), vec![1, -2]);
    let big = Tensor::from_vec(vec![i64::MAX], &[1]).unwrap();
    assert_eq!(big.item_i64().unwrap(), i64::MAX);
    let b = Tensor::zeros(&[2], DType::Bool).unwrap();
    b.copy_from(&x).unwrap();
    assert_eq!(b.to_vec::<bool>(), vec![true, true]);
    assert!(x.item_f64().is_err());
}
