
gÛ
ncall_functionaten.relu.default"³:°
­:ª
§:¤
¡:ž
›:˜
•:’
:Œ
‰:†
ƒ:€
~:|
z:x
v:t
r:p
n:l
j:h
f:d
b:`
^:\
Z:X
V:T
R:P
N:L
J:H
F:D
B:@
>:<
::8
6:4
2:0
.:,
*:(
&:$
": 
:
:
:
:
:

:
:

outputoutput