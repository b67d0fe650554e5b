// gpuia pass-through vertex shader (generated from the input layout)
struct VSInput {
{{INPUTS}}
}
struct VSOutput {
{{OUTPUTS}}
}
@vertex fn main(input: VSInput) -> VSOutput {
  var o: VSOutput;
{{BODY}}
  return o;
}
