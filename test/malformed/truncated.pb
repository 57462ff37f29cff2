
baseL
	primals_1placeholder	primals_12

float32"cuda:0Z
is_forwardO

tangents_1placeholder
tangents_12

float32"cuda:0Zis_backwardo
relucall_functionaten.relu.default"
	primals_12

float32"cuda:0:core:	pointwiseZ
is_forwardg
l