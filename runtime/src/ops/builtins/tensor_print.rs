//! `str(tensor)` and `print(tensor)` in TorchScript: ATen's C++ tensor printer (`at::print`),
//! not Python's repr. The printer itself is shared with graph text's tensor constants
//! (`ember_dialects::tensorfmt`); this feeds it a tensor's values as doubles, as ATen does.

use crate::tensor::Tensor;

/// `str(t)` as TorchScript prints a tensor.
pub fn tensor_str(t: &Tensor) -> String {
    let values = t.to_vec::<f64>();
    let sizes: Vec<i64> = t.sizes().to_vec();
    ember_dialects::tensorfmt::print_tensor(t.dtype().scalar_type_name(), &sizes, &values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_aten() {
        // str(t) under torch.jit.script.
        let f = |v: Vec<f32>, s: &[i64]| tensor_str(&Tensor::from_vec(v, s).unwrap());
        assert_eq!(
            f(vec![1.5, 2.0, -3.25], &[3]),
            " 1.5000\n 2.0000\n-3.2500\n[ CPUFloatType{3} ]"
        );
        assert_eq!(
            tensor_str(&Tensor::from_vec(vec![1i64, 2, 3, 40], &[2, 2]).unwrap()),
            "  1   2\n  3  40\n[ CPULongType{2,2} ]"
        );
        assert_eq!(f(vec![2.5], &[]), "2.5\n[ CPUFloatType{} ]");
        assert_eq!(
            tensor_str(&Tensor::from_vec(vec![true, false], &[2]).unwrap()),
            " 1\n 0\n[ CPUBoolType{2} ]"
        );
        assert_eq!(
            f(vec![1e-5, 1e5], &[2]),
            " 1.0000e-05\n 1.0000e+05\n[ CPUFloatType{2} ]"
        );
        assert_eq!(f(vec![], &[0, 3]), "[ CPUFloatType{0,3} ]");
        let cube: Vec<f32> = (0..24).map(|i| i as f32).collect();
        assert_eq!(
            f(cube, &[2, 3, 4]),
            "(1,.,.) = \n  0   1   2   3\n   4   5   6   7\n   8   9  10  11\n\n(2,.,.) = \n 12  13  14  15\n  16  17  18  19\n  20  21  22  23\n[ CPUFloatType{2,3,4} ]"
        );
        // Slices of rank-4 tensors count the first dimension fastest; scales and column blocks.
        let hyper: Vec<f32> = (0..24).map(|i| i as f32).collect();
        assert_eq!(
            f(hyper, &[2, 3, 2, 2]),
            "(1,1,.,.) = \n 0  1\n  2  3\n\n(2,1,.,.) = \n 12  13\n  14  15\n\n(1,2,.,.) = \n 4  5\n  6  7\n\n(2,2,.,.) = \n 16  17\n  18  19\n\n(1,3,.,.) = \n  8   9\n  10  11\n\n(2,3,.,.) = \n 20  21\n  22  23\n[ CPUFloatType{2,3,2,2} ]"
        );
        assert_eq!(
            f(vec![1.5e-3, 2.5e-3, 1e-3, 3e-3], &[1, 2, 2]),
            "(1,.,.) = \n0.001 *\n  1.5000  2.5000\n   1.0000  3.0000\n[ CPUFloatType{1,2,2} ]"
        );
        let wide: Vec<f32> = (0..20).map(|i| i as f32 * 1.5).collect();
        assert_eq!(
            f(wide, &[1, 20]),
            "Columns 1 to 8  0.0000   1.5000   3.0000   4.5000   6.0000   7.5000   9.0000  10.5000\n\nColumns 9 to 16 12.0000  13.5000  15.0000  16.5000  18.0000  19.5000  21.0000  22.5000\n\nColumns 17 to 20 24.0000  25.5000  27.0000  28.5000\n[ CPUFloatType{1,20} ]"
        );
        let scalar = |v: f64| tensor_str(&Tensor::from_vec(vec![v], &[]).unwrap());
        assert_eq!(scalar(1e20), "1e+20\n[ CPUDoubleType{} ]");
        assert_eq!(scalar(123456.7), "123456.7\n[ CPUDoubleType{} ]");
        assert_eq!(scalar(3.0), "3\n[ CPUDoubleType{} ]");
        assert_eq!(
            f(vec![1e10, 1.0], &[2]),
            " 1.0000e+10\n 1.0000e+00\n[ CPUFloatType{2} ]"
        );
    }
}
